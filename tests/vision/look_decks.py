"""Photo decks for the tests of the naming's looks at the ink (layout, colour, shading): two
cards the features network can hardly tell apart, and one far off."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from ducktable.vision.features import PhotoDeck, ink_layouts


def twin_deck(crops: Mapping[str, Sequence[np.ndarray]], seed: int, columns: int | None = None
              ) -> tuple[PhotoDeck, dict[str, np.ndarray]]:
    """A deck of the three cards of ``crops``: the first two nearly the same embedding, the
    third far off, each enrolled with its crops' ink layouts (only their first ``columns``: a
    deck enrolled before the later ones were stored); and its views."""
    assert len(crops) == 3
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(2, 32)).astype(np.float32)
    centres = [base[0], base[0] + 0.02 * rng.normal(size=32).astype(np.float32), base[1]]
    views = {label: centre + 0.01 * rng.normal(size=(4, 32)).astype(np.float32)
             for label, centre in zip(crops, centres, strict=True)}
    layouts = {label: ink_layouts(list(cards))[:, :columns] for label, cards in crops.items()}
    return PhotoDeck.fit(views, layouts), views


def nearer_to(views: dict[str, np.ndarray], label: str, other: str) -> np.ndarray:
    """An embedding a little nearer to ``label``'s views than to ``other``'s."""
    return (0.8 * views[label].mean(axis=0) + 0.2 * views[other].mean(axis=0))[None, :]
