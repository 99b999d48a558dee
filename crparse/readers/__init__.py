"""Format readers: decoded text (or raw bytes, for binary formats) -> source lines.

Every reader hands the same thing to the block stage: the document's lines, numbered as in the
source, so the rest of the pipeline is the same for every format.
"""

from crparse.readers.detect import FORMATS, detect_format
from crparse.readers.plaintext import read_lines

__all__ = ["FORMATS", "detect_format", "read_lines"]
