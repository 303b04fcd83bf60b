"""The repair-order board's identifiers: VIN, RO number and date, drawn and checked.

VIN (ISO 3779 structure, check digit per 49 CFR 565.15): 17 characters from the digits
and A-Z without I, O and Q. Positions 1-3 WMI (a real manufacturer code from `WMIS`),
4-8 VDS, 9 the check digit, 10 the model year (never I, O, Q, U, Z or 0; 30-year cycle),
11 the plant, 12-17 the serial (digits, as high-volume makers use). Check digit:
transliterate (A-H = 1-8, J-N = 1-5, P = 7, R = 9, S-Z = 2-9, digits as themselves),
weight by position (8 7 6 5 4 3 2 10 0 9 8 7 6 5 4 3 2), sum mod 11, 10 written X.

RO number: six digits, printed after the label "RO#" (the label is not part of the
number, as "VIN:" is not part of the VIN). Date: US MM/DD/YYYY, drawn from a fixed
window (no wall clock).
"""
from __future__ import annotations

import datetime as _dt

import numpy as np
from pydantic import BaseModel, ConfigDict

VIN_ALPHABET = "0123456789ABCDEFGHJKLMNPRSTUVWXYZ"        # no I, O, Q
VIN_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)
VIN_VALUES: dict[str, int] = {
    **{d: int(d) for d in "0123456789"},
    **dict(zip("ABCDEFGH", range(1, 9))), **dict(zip("JKLMN", range(1, 6))), "P": 7, "R": 9,
    **dict(zip("STUVWXYZ", range(2, 10))),
}
YEAR_CODES = "ABCDEFGHJKLMNPRSTVWXY123456789"             # 30 codes; 2010 = A ... 2030 = Y, 2031 = 1
YEAR_CYCLE_START = 2010
# World manufacturer identifiers (public codes): Honda USA, Ford, Chevrolet, Toyota Canada, VW Mexico,
# Tesla, BMW, Hyundai, Honda Japan, Nissan USA.
WMIS = ("1HG", "1FA", "1G1", "2T1", "3VW", "5YJ", "WBA", "KMH", "JHM", "1N4")
RO_DIGITS = 6
DATE_RANGE = (_dt.date(2024, 1, 1), _dt.date(2026, 12, 31))


def vin_check_digit(vin: str) -> str:
    """Position 9 of a 17-character VIN (its own position 9 is ignored: weight 0)."""
    if len(vin) != 17:
        raise ValueError(f"a VIN has 17 characters, not {len(vin)}")
    try:
        s = sum(VIN_VALUES[c] * w for c, w in zip(vin, VIN_WEIGHTS))
    except KeyError as e:
        raise ValueError(f"{e.args[0]!r} is not a VIN character") from None
    r = s % 11
    return "X" if r == 10 else str(r)


def vin_is_valid(vin: str) -> bool:
    """17 characters of the VIN alphabet, a model-year code at 10, the right check digit at 9."""
    if not isinstance(vin, str) or len(vin) != 17 or any(c not in VIN_ALPHABET for c in vin):
        return False
    if vin[9] not in YEAR_CODES:
        return False
    return vin[8] == vin_check_digit(vin)


def model_year_code(year: int) -> str:
    """Position 10 for a model year (the code repeats every 30 years)."""
    return YEAR_CODES[(int(year) - YEAR_CYCLE_START) % len(YEAR_CODES)]


def sample_vin(rng: np.random.Generator, model_year: int) -> str:
    """WMI, 5 VDS characters, check digit, year code, plant, 6 serial digits."""
    def pick(chars: str) -> str:
        return chars[int(rng.integers(len(chars)))]

    wmi = WMIS[int(rng.integers(len(WMIS)))]
    vds = "".join(pick(VIN_ALPHABET) for _ in range(5))
    plant = pick(VIN_ALPHABET)
    serial = "".join(pick("0123456789") for _ in range(6))
    draft = wmi + vds + "0" + model_year_code(model_year) + plant + serial
    return draft[:8] + vin_check_digit(draft) + draft[9:]


class BoardIds(BaseModel):
    """What the repair-order board says."""

    model_config = ConfigDict(extra="forbid")
    ro: str
    vin: str
    date: str           # MM/DD/YYYY
    model_year: int


def sample_ro(rng: np.random.Generator) -> str:
    """Six digits, never starting with 0 (so it cannot be read as a shorter number)."""
    first = str(int(rng.integers(1, 10)))
    return first + "".join(str(int(rng.integers(10))) for _ in range(RO_DIGITS - 1))


def sample_date(rng: np.random.Generator) -> str:
    lo, hi = DATE_RANGE
    d = lo + _dt.timedelta(days=int(rng.integers((hi - lo).days + 1)))
    return f"{d.month:02d}/{d.day:02d}/{d.year:04d}"


def sample_board_ids(rng: np.random.Generator) -> BoardIds:
    """RO number, then the date, then a VIN of a model year up to 12 years before the date."""
    ro = sample_ro(rng)
    date = sample_date(rng)
    year = int(date[-4:]) - int(rng.integers(0, 13))
    return BoardIds(ro=ro, vin=sample_vin(rng, year), date=date, model_year=year)
