"""The gallery's committed images (docs/images/, shown by docs/gallery.md) are what ``examples/gallery.py`` draws
now: every image the page shows is committed and written by the script, and (slow: the script's full 3,000-query
data) a fresh run gives images of the same pixel size that differ from the committed ones by at most a rendering
tolerance (fonts and anti-aliasing of another matplotlib or FreeType may move a few pixels, a changed plot moves
many). When it fails: ``python examples/gallery.py`` and commit docs/images/.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "images"
#: a fresh image may differ from the committed one by at most this mean |difference| (0-255, over all channels)
MEAN_TOLERANCE = 1.5
#: ... and at most this share of its pixels may differ by more than 64 in some channel
CHANGED_TOLERANCE = 0.01


def _shown() -> set[str]:
    page = (ROOT / "docs" / "gallery.md").read_text(encoding="utf-8")
    return set(re.findall(r"\]\(images/([^)]+\.png)\)", page))


def _pixels(path: Path) -> np.ndarray:
    with Image.open(path) as img:
        return np.asarray(img.convert("RGB"), dtype=np.int16)


def test_the_page_shows_every_committed_image_and_only_those():
    committed = {p.name for p in IMAGES.glob("gallery-*.png")}
    assert _shown() == committed and len(committed) >= 10


@pytest.mark.scale  # draws the gallery on its 3,000 queries (about 20 s)
def test_the_committed_images_are_what_the_script_draws_now(tmp_path):
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from gallery import main
    finally:
        sys.path.remove(str(ROOT / "examples"))
    fresh = {p.name: p for p in main(tmp_path)}
    assert set(fresh) == _shown()
    stale = []
    for name, path in sorted(fresh.items()):
        new, old = _pixels(path), _pixels(IMAGES / name)
        if new.shape != old.shape:
            stale.append(f"{name}: {old.shape[1]}x{old.shape[0]} px committed, {new.shape[1]}x{new.shape[0]} drawn")
            continue
        diff = np.abs(new - old)
        mean, changed = float(diff.mean()), float((diff.max(axis=2) > 64).mean())
        if mean > MEAN_TOLERANCE or changed > CHANGED_TOLERANCE:
            stale.append(f"{name}: mean difference {mean:.2f}, {changed:.2%} of the pixels changed")
    assert not stale, "stale gallery images (run python examples/gallery.py): " + "; ".join(stale)
