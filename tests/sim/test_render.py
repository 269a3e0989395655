"""The card renderer: every card of every deck, two printings, deterministic, detector-friendly."""

from __future__ import annotations

import hashlib

import cv2
import numpy as np
import pytest
from ducktable.rules import decks
from ducktable.sim import render

SIZES = {"duck": 38, "bruce": 41, "grey": 18, "sitting": 30, "ducky": 11, "standard52": 52}


def digest(img: np.ndarray) -> str:
    return hashlib.sha256(img.tobytes()).hexdigest()


@pytest.mark.parametrize("game", render.DRAWABLE_DECKS)
def test_every_face_renders_and_no_two_faces_look_alike(game: str) -> None:
    labels = render.card_labels(game)
    assert len(labels) == SIZES[game]
    for edition in render.EDITIONS:
        images = [render.render_card(game, lab, edition=edition, width=60, height=90)
                  for lab in labels]
        assert all(img.shape == (90, 60, 3) and img.dtype == np.uint8 for img in images)
        assert len({digest(img) for img in images}) == len(labels)


def test_duck_C1_C2_C3_vocabulary_has_both_lifebelt_sides_and_the_towel() -> None:
    labels = render.card_labels("duck")
    for value in range(6, 11):
        assert f"lifebelt-{value}-green" in labels and f"lifebelt-{value}-red" in labels
    assert "towel" in labels and "yellow-0" in labels and "red-8" in labels


def test_ducky_C3_vocabulary_is_card_faces_and_gift_not_tokens() -> None:
    labels = render.card_labels("ducky")
    assert "gift" in labels and "card-yellow-pink" in labels
    assert not any(lab.startswith(("pad-", "duck-")) for lab in labels)


def test_sit_C1_vocabulary_names_every_action_and_sky_position() -> None:
    labels = render.card_labels("sitting")
    assert {f"action-{a}" for a in decks.SIT_ACTIONS} <= set(labels)
    assert {f"sky-{p}" for p in range(1, 7)} | {"water", "target"} <= set(labels)


def test_same_arguments_give_the_same_pixels() -> None:
    for game in render.GAMES:
        label = render.card_labels(game)[-1]
        a = render.render_card(game, label, edition="alternate", width=123, height=187)
        b = render.render_card(game, label, edition="alternate", width=123, height=187)
        assert np.array_equal(a, b)
        assert np.array_equal(render.render_back(game), render.render_back(game))


@pytest.mark.parametrize("game", render.GAMES)
def test_alternate_edition_looks_different_from_the_reference(game: str) -> None:
    for label in render.card_labels(game):
        ref = render.render_card(game, label, width=80, height=120).astype(int)
        alt = render.render_card(game, label, edition="alternate", width=80, height=120)
        assert np.abs(ref - alt).mean() > 12, label
    assert np.abs(render.render_back(game).astype(int) -
                  render.render_back(game, edition="alternate")).mean() > 20


@pytest.mark.parametrize("game", render.DRAWABLE_DECKS)
def test_cards_have_a_light_border_so_their_outline_stands_out(game: str) -> None:
    faces = [render.render_card(game, lab, edition=e) for lab in render.card_labels(game)[:6]
             for e in render.EDITIONS]
    for img in [*faces, render.render_back(game)]:
        rim = np.concatenate([img[:3].reshape(-1, 3), img[-3:].reshape(-1, 3),
                              img[:, :3].reshape(-1, 3), img[:, -3:].reshape(-1, 3)])
        assert rim.mean() > 200


@pytest.mark.parametrize(("game", "label"), [
    ("duck", "yellow-6"), ("duck", "lifebelt-9-red"), ("bruce", "teal-3"), ("grey", "grey-D"),
    ("sitting", "sky-6"), ("standard52", "10-hearts"), ("ducky", "card-green-blue"),
])
def test_corner_indices_read_the_same_when_the_card_is_upside_down(game: str, label: str) -> None:
    for edition in render.EDITIONS:
        img = render.render_card(game, label, edition=edition).astype(int)
        turned = img[::-1, ::-1]
        # the index block (top corner, left or right by edition) matches its 180° twin
        for x0 in (20, 132):
            block, twin = img[22:62, x0:x0 + 48], turned[22:62, x0:x0 + 48]
            assert np.abs(block - twin).mean() < 3


def test_size_is_respected_and_too_small_is_refused() -> None:
    assert render.render_card("grey", "yellow-1", width=100, height=150).shape == (150, 100, 3)
    assert render.render_back("duck", width=50, height=75).shape == (75, 50, 3)
    with pytest.raises(ValueError, match="too small"):
        render.render_card("grey", "yellow-1", width=8, height=12)


def test_unknown_game_label_or_edition_gets_a_clear_message() -> None:
    with pytest.raises(KeyError, match="card_labels"):
        render.render_card("duck", "purple-3")
    with pytest.raises(KeyError, match="known decks"):
        render.render_card("poker", "A-spades")
    with pytest.raises(KeyError, match="reference"):
        render.render_card("duck", "yellow-3", edition="gold")


def test_invented_printings_vary_the_look_but_never_use_the_alternate_editions_fonts() -> None:
    """Training-only printings (domain randomisation) keep the alternate edition unseen."""
    alternate = render.STYLES["alternate"]
    serif = {cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX, alternate.title_font,
             alternate.index_font & ~cv2.FONT_ITALIC}
    for font in (*render.TRAINING_INDEX_FONTS, *render.TRAINING_TITLE_FONTS):
        assert font & ~cv2.FONT_ITALIC not in serif
    a = render.render_variant("duck", "yellow-5", 3, width=80, height=120)
    assert np.array_equal(a, render.render_variant("duck", "yellow-5", 3, width=80, height=120))
    others = [render.render_variant("duck", "yellow-5", v, width=80, height=120).astype(int)
              for v in range(4, 8)]
    assert all(np.abs(a - o).mean() > 3 for o in others)
    reference = render.render_card("duck", "yellow-5", width=80, height=120).astype(int)
    assert np.abs(a - reference).mean() > 3
    # the card still says what it is: another label of the same printing differs
    six = render.render_variant("duck", "yellow-6", 3, width=80, height=120).astype(int)
    assert np.abs(a - six).mean() > 0.5
    with pytest.raises(KeyError, match="card_labels"):
        render.render_variant("duck", "purple-3", 0)
