import sys

from scenebench.cli import main

sys.exit(main())
