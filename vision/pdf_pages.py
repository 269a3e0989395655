"""Grey page images as a printable PDF: the marker sheet and the layout sheets.

Why no package: a PDF that holds one lossless grey image per page is a few objects and a
cross-reference table; the pages print at true size, which is what the markers' and the
layouts' measurements need.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np


def pages_pdf(pages: Sequence[np.ndarray], page_mm: tuple[float, float]
              ) -> bytes:
    """Grey page images as a PDF, one page each at ``page_mm`` (lossless, printable at size)."""
    pt_w, pt_h = (v / 25.4 * 72 for v in page_mm)
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    kids = []
    for page in pages:
        h, w = page.shape[:2]
        data = zlib.compress(np.ascontiguousarray(page).tobytes(), 9)
        content = f"q {pt_w:.2f} 0 0 {pt_h:.2f} 0 0 cm /Im0 Do Q".encode()
        first = len(objects) + 1
        kids.append(f"{first} 0 R")
        objects += [
            (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pt_w:.2f} {pt_h:.2f}] "
             f"/Resources << /XObject << /Im0 {first + 1} 0 R >> >> "
             f"/Contents {first + 2} 0 R >>").encode(),
            (f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
             f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(data)} >>\nstream\n"
             ).encode() + data + b"\nendstream",
            f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
        ]
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>".encode()
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
            ).encode()
    return bytes(out)
