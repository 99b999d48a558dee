"""Stage 1: bytes -> decoded, line-normalised NFC text, with what was found on the way.

The CR was shipped in eight encodings and four line-ending conventions over 27 years, and some
copies in circulation are damaged. This stage turns any of them into one canonical text and
reports the encoding it chose and every kind of damage it saw, so later stages never guess.
"""

from crparse.decode.damage import find_damage
from crparse.decode.detect import DecodedText, decode_bytes, looks_binary

__all__ = ["DecodedText", "decode", "decode_bytes", "find_damage", "looks_binary"]


def decode(data: bytes) -> DecodedText:
    """Decode raw bytes and attach damage diagnostics."""
    decoded = decode_bytes(data)
    return decoded.with_diagnostics(find_damage(decoded))
