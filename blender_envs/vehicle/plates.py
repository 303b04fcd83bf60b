"""US licence plates as data: state serial formats, colours, the state name, seeded serials.

Formats are the current standard-issue passenger formats of Faker's en_US automotive
provider (MIT; from Wikipedia "United States license plate designs and serial formats"):
`?` = a letter, `#` = a digit, anything else (space, hyphen) is printed as is. Letters
are drawn without I, O and Q on every state (most states skip them on standard serials;
it also keeps 0/O and 1/I apart, so a reading error is a reading error). The state
name is printed in full on every plate (`name_on_plate`, as the state prints it).

Ground truth (scorers.car_plate): `plate` = the serial's letters and digits only
(App. D's normalisation, e.g. "7ABC123" for "7ABC123", "ABC1234" for "ABC-1234") and
`state` = the state name as printed. Colours are approximations of each state's
current base plate (sRGB hex), not licensed artwork.
"""
from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict

PLATE_LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"   # A-Z without I, O, Q
DIGITS = "0123456789"
CHAR_HEIGHT_M = 0.0700                      # serial glyph height (2.75 in, the usual US die)
NAME_HEIGHT_M = 0.0180                      # state-name line height


class PlateStyle(BaseModel):
    """One state's plate: its serial formats and how it is printed."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    state: str                  # full name
    code: str                   # USPS two-letter code (recorded, never printed)
    name_on_plate: str          # the state name as printed, in full
    name_position: str          # "top" or "bottom"
    formats: tuple[str, ...]
    background: str             # sRGB hex
    characters: str             # serial colour
    name_color: str
    embossed: bool


def _p(state, code, name, pos, formats, bg, chars, name_color, embossed) -> PlateStyle:
    return PlateStyle(state=state, code=code, name_on_plate=name, name_position=pos, formats=tuple(formats),
                      background=bg, characters=chars, name_color=name_color, embossed=embossed)


STATES: dict[str, PlateStyle] = {s.code: s for s in (
    _p("California", "CA", "California", "top", ["#???###"], "#F4F4F2", "#1B2A6B", "#C8102E", True),
    _p("Texas", "TX", "TEXAS", "top", ["???-####"], "#F2F2EE", "#111111", "#111111", False),
    _p("New York", "NY", "NEW YORK", "top", ["???-####"], "#F3F1E6", "#0B2A5B", "#0B2A5B", True),
    _p("Florida", "FL", "FLORIDA", "top", ["??? ?##", "### ???"], "#F5F5F2", "#0F5A33", "#0F5A33", False),
    _p("Arizona", "AZ", "ARIZONA", "top", ["???####"], "#F1E3C6", "#5A1F1B", "#5A1F1B", False),
    _p("Ohio", "OH", "OHIO", "top", ["??? ####"], "#F2F2EC", "#1D2F6F", "#B0182C", False),
    _p("Pennsylvania", "PA", "PENNSYLVANIA", "top", ["???-####"], "#F4F4F4", "#14275A", "#14275A", True),
    _p("Illinois", "IL", "Illinois", "top", ["?? #####"], "#F4F2EE", "#7A1020", "#7A1020", True),
)}


class Plate(BaseModel):
    """One car's plate: state, the format it was drawn from, and the serial as printed."""

    model_config = ConfigDict(extra="forbid")
    state_code: str
    format: str
    text: str

    @property
    def style(self) -> PlateStyle:
        return STATES[self.state_code]

    def characters(self) -> str:
        """The serial's letters and digits only (separators dropped)."""
        return "".join(c for c in self.text if c.isalnum())


def serial_from_format(fmt: str, rng: np.random.Generator) -> str:
    """Substitute `?` with a letter and `#` with a digit, left to right, one draw each."""
    out = []
    for ch in fmt:
        if ch == "?":
            out.append(PLATE_LETTERS[int(rng.integers(len(PLATE_LETTERS)))])
        elif ch == "#":
            out.append(DIGITS[int(rng.integers(len(DIGITS)))])
        else:
            out.append(ch)
    return "".join(out)


def sample_plate(rng: np.random.Generator, state_code: str | None = None) -> Plate:
    """A plate of `state_code` (uniform over STATES when None), format uniform over its formats."""
    codes = sorted(STATES)
    code = codes[int(rng.integers(len(codes)))] if state_code is None else state_code
    style = STATES[code]
    fmt = style.formats[int(rng.integers(len(style.formats)))]
    return Plate(state_code=code, format=fmt, text=serial_from_format(fmt, rng))
