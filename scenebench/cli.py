"""The `scenebench` command: wires configs to the packages, holds no logic of its own."""
from __future__ import annotations

import argparse
import logging
import sys

from scenebench import CONFIG_DIR, __version__


def _known(group: str) -> list[str]:
    return sorted(p.stem for p in (CONFIG_DIR / group).glob("*.yaml"))


def compose_render_config(overrides: list[str]):
    """Hydra overrides -> a validated RunConfig; bad knobs become one-line errors."""
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf import OmegaConf

    from blender_envs.registry import known_environments
    from render_farm.runner import ConfigError, RunConfig

    for ov in overrides:
        key, _, value = ov.partition("=")
        if not _:
            raise ConfigError(f"override {ov!r} is not key=value")
        if key == "env" and value not in known_environments():
            raise ConfigError(f"unknown environment {value!r}; known environments: {', '.join(known_environments())}")
        if key in ("render", "executor") and value not in _known(key):
            what = "quality" if key == "render" else key
            raise ConfigError(f"unknown {what} {value!r}; choose one of {', '.join(_known(key))}")
    try:
        with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base=None):
            cfg = compose(config_name="config", overrides=overrides)
    except HydraException as exc:
        raise ConfigError(str(exc).splitlines()[0]) from None
    c = OmegaConf.to_container(cfg, resolve=True)
    try:
        return RunConfig(
            env=c["env"]["name"], n=c["n"], seed=c["seed"], out=str(c["out"]),
            quality=c["render"], executor=c["executor"]["name"], ray_address=c["executor"].get("address"),
            workers=c["workers"], device=str(c["device"]).lower(), stratum=c["stratum"], new_run=c["new_run"],
            max_scenes_per_worker=c["max_scenes_per_worker"], max_attempts=c["max_attempts"],
            progress=c["progress"], faults=c["faults"])
    except ValueError as exc:  # pydantic: name the first bad field in one line
        errs = getattr(exc, "errors", lambda: [])()
        if errs:
            e = errs[0]
            raise ConfigError(f"bad value for {'.'.join(map(str, e['loc']))}: {e['msg']} "
                              f"(got {e.get('input')!r})") from None
        raise ConfigError(str(exc)) from None


def cmd_render(args) -> int:
    from render_farm.runner import render

    cfg = compose_render_config(args.overrides)
    summary = render(cfg)
    print(f"scenebench: {cfg.env} -> {summary.run_dir}")
    print(f"scenebench: {summary.line()}")
    if summary.failed_scenes:
        print(f"scenebench: failed scenes (see {summary.run_dir}/failures.jsonl): "
              f"{', '.join(summary.failed_scenes)}")
    return 0 if not summary.failed_scenes else 3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scenebench", description=__doc__)
    parser.add_argument("--version", action="version", version=f"scenebench {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("render", help="render N frames of an environment (Hydra overrides: env=calib n=8 ...)")
    p.add_argument("overrides", nargs="*", help="key=value overrides, e.g. env=calib n=8 render=preview")
    p.set_defaults(func=cmd_render)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    from render_farm.runner import ConfigError
    from render_farm.store import ConfigMismatchError

    try:
        return args.func(args)
    except (ConfigError, ConfigMismatchError) as exc:
        print(f"scenebench: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("scenebench: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
