"""Real-photo development sets, rebuilt from public GitHub repositories at fixed commits:
``python -m ducktable.bench.photo_sets --mirrors DIR --out DIR [--only a,b]``.

Why this module exists: renders say nothing about a real printing in real light, so the card
finder and enrolment (``ducktable bench photos``) are developed and measured on real
photographs. The photographs found are third-party and most carry no licence, so they must
never enter this repository; this script does instead, so that anyone can rebuild the very
same sets, byte for byte, from bare git mirrors of the repositories at these commits
(:data:`SETS` holds the label rules):

* ``vosloo_piatnik``: Vosloo/playing-cards-detection at 8d091946331a686f668ed297987c6c22f44aee55
* ``anima_schnapsen_single`` and ``anima_schnapsen_scenes``: AnimaNoProject/Detecting-playing-cards
  at ca4dfaf1b5c8ac234425ca2988784eeffbdffd6a
* ``rdpong_bicycle``: rd-pong/EE326-Project-Playing-Card-Recognition at 5f8fe8412762e5bf30198d73fa679debc2469666
* ``ece395_ov7670``: vincentbanguyen/ECE395-Poker-Card-Classifier-Device at 4b91de6799c7985da811205dbfb45ba2a7266cf1
* ``setgame_alu82``: alu82/setsolver-card-classifier at f8ffc12e25661a13b51deee675a595f7dfd8c4e0
* ``setgame_tomwhite_crops`` and ``setgame_tomwhite_scenes``: tomwhite/set-game
  at bd047ece2f07e483f39fa41ba1170d9afd9a768c
* ``yuchenrao_floor``: yuchenrao/EECS349-Card-Classification-Project at 9eb7a4d614f0843634ac032fa2536b19f32a7fbe
* ``obind_webcam_hearts``: obind/Card-Ai at 7730a5c62911dde6eb43dde4aab46770e9a24b28
* ``filhodeed_bicycle_crops``: FilhoDeEd/Cards-Detector-2 at ed1d406bf42ecd6468ffeb07956e284c0913a93e
* ``dobble_webcam_crops``: AlbertaBeef/dobble_buddy at 7cb9386b3adb03e128be7afc5d1fb719a98e8ba6

and photos with no card at all (doors, keyboards, phones, rooms), which a card finder must
refuse (``ducktable bench photos --other``):

* ``nocard_objects_azeecord``: Azeecord/mobilenet-vs-googlelens at fda48bfa2e856cd1d5d5b9b2731fdc56b0496f3d
* ``nocard_objects_advik20``: Advik20/Google-Lens-VS-MobileNet at acaa8a9d26a33d815a5f340f2063466459b81801
* ``nocard_objects_arjundev``: Arjundev123march/mobilenetvsmirsoftazure at c52c7aef0734f2dafffba7de9120b655a2c83712
* ``nocard_objects_codingisfun``: Coding-is-fun123/google_vs_mobile at 576e1157444890a1f488041371be43ee2f4acba0
* ``nocard_rooms_arturmogus``: Arturmogus/cocossd2 at b9647726dfe1fdd9fc03c78132feeef901f08269

UNO photo sets are deliberately not used here: they are kept back for an independent check,
so nothing developed on these sets has seen them.

Output (OUT defaults to ``~/ducktable-photos`` and may not lie inside a git work tree)::

    OUT/sets/<set>/<label>/<name>.jpg
    OUT/sets/SETS.json        provenance, counts and every file's source path
    OUT/sets/SETS.md          summary table
    OUT/sheets/<set>.png      contact sheet: the first photo of up to 12 labels

Images are decoded with OpenCV; unreadable ones are skipped, pixel-identical duplicates within
a label dropped, and the rest re-encoded as JPEG (quality 92) with the longest side shrunk to
1280 px at most. Each set's folder is deleted and rewritten, so a rerun gives the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import operator
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np

MAX_SIDE = 1280
JPEG_QUALITY = 92
DEFAULT_OUT = Path("~/ducktable-photos")

RANKS_DE = {"Ass": "A", "Zehn": "10", "Koenig": "K", "Dame": "Q", "Bube": "J"}
SUITS_DE = {"Herz": "H", "Karo": "D", "Kreuz": "C", "Pik": "S"}
SUITS_EN = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}
FACES_EN = {"ace": "A", "jack": "J", "queen": "Q", "king": "K"}

ITEM_ORDER = operator.itemgetter(1, 2, 0)  # items sort by label, stem, source
Row = tuple[str, str, int | None]  # path, blob sha, size (None where git does not know it)


class Item(NamedTuple):
    """One photo of one label: where it comes from and what it is called in the set."""

    source: str
    label: str
    stem: str
    info: dict[str, Any]


class Missing(Exception):
    """A mirror or a commit that is not on this machine (the message says how to get it)."""


# ---- reading a bare git mirror ---------------------------------------------------------------------

class Repo:
    """A bare git directory read at one commit with the ``git`` command."""

    def __init__(self, gitdir: Path, commit: str) -> None:
        self.gitdir = gitdir
        self.commit = commit

    def git(self, *args: str) -> bytes:
        """The standard output of ``git --git-dir GITDIR ARGS``."""
        return subprocess.run(["git", "--git-dir", str(self.gitdir), *args],
                              check=True, capture_output=True).stdout

    def has_commit(self) -> bool:
        """Whether the commit is in the mirror."""
        found = subprocess.run(["git", "--git-dir", str(self.gitdir), "cat-file", "-e", f"{self.commit}^{{commit}}"],
                               capture_output=True)
        return found.returncode == 0

    def ls(self) -> list[Row]:
        """Every file (blob) at the commit."""
        rows: list[Row] = []
        for rec in self.git("ls-tree", "-r", "-l", "-z", self.commit).split(b"\0"):
            if not rec:
                continue
            meta, path = rec.split(b"\t", 1)
            parts = meta.split()
            if parts[1] != b"blob":
                continue
            size = parts[3].decode()
            rows.append((path.decode("utf-8", "replace"), parts[2].decode(), int(size) if size.isdigit() else None))
        return rows

    def blob(self, sha: str) -> bytes:
        """A file's bytes; empty where the object is missing (a large file left out of a snapshot)."""
        try:
            return self.git("cat-file", "blob", sha)
        except subprocess.CalledProcessError:
            return b""

    def licence(self, rows: list[Row]) -> str | None:
        """The top-level licence file and the licence it names, or None where there is none."""
        names = [p for p, _, _ in rows if "/" not in p and re.match(r"(?i)(licen[cs]e|copying)", p)]
        if not names:
            return None
        sha = {p: s for p, s, _ in rows}
        text = self.blob(sha[names[0]]).decode("utf-8", "replace")
        for key, name in [("MIT License", "MIT"), ("Apache License", "Apache-2.0"),
                          ("GNU GENERAL PUBLIC LICENSE", "GPL"), ("GNU LESSER", "LGPL"), ("BSD", "BSD"),
                          ("Creative Commons", "CC"), ("Unlicense", "Unlicense")]:
            if key.lower() in text.lower():
                return f"{names[0]}: {name}"
        return f"{names[0]}: {text.strip().splitlines()[0][:80] if text.strip() else '?'}"


# ---- label rules: which files of a repository are photos of which card ---------------------------

def matching(rows: list[Row], pattern: str) -> list[tuple[str, re.Match[str]]]:
    """The paths that match ``pattern`` from their start, with the match."""
    return [(p, m) for p, _, _ in rows if (m := re.match(pattern, p))]


def items_vosloo(rows: list[Row], repo: Repo) -> list[Item]:
    """``out/angle_1/<card>_<nn>.jpg``, already labelled like ``10H``."""
    return [Item(p, m[1], f"angle1_{m[2]}", {})
            for p, m in matching(rows, r"out/angle_1/((?:10|[2-9JQKA])[CDHS])_(\d+)\.jpg$")]


def items_anima_templates(rows: list[Row], repo: Repo) -> list[Item]:
    """One template photo per card, named in German (``Herz_Koenig.JPG`` is KH)."""
    pattern = r"matlab/input/Datensaetze/Templates/(Herz|Karo|Kreuz|Pik)_(Ass|Zehn|Koenig|Dame|Bube)\.JPG$"
    return [Item(p, RANKS_DE[m[2]] + SUITS_DE[m[1]], f"template_{m[1]}_{m[2]}", {})
            for p, m in matching(rows, pattern)]


# Hand-assigned by looking at every photo: (game, move) -> [bottom/larger card, top/partly hidden card].
# Each game's cards are all distinct and game 3 shows all 20 cards of the deck exactly once, which
# supports the reading.
ANIMA_SCENES = {
    (1, 1): ["KH", "QH"], (1, 2): ["10H", "JH"], (1, 3): ["KC", "AD"], (1, 4): ["KD", "QD"],
    (1, 5): ["AC", "10D"], (1, 6): ["KS", "AS"], (1, 7): ["JS", "10C"],
    (2, 1): ["10C", "KC"], (2, 2): ["JC", "10S"], (2, 3): ["AC", "10H"], (2, 4): ["JD", "10D"],
    (2, 5): ["AD", "KH"], (2, 6): ["AS", "KD"], (2, 7): ["JH", "QD"], (2, 8): ["JS", "AH"],
    (3, 1): ["JC", "QD"], (3, 2): ["QS", "JD"], (3, 3): ["AH", "KC"], (3, 4): ["10D", "QC"],
    (3, 5): ["AS", "10C"], (3, 6): ["10S", "KH"], (3, 7): ["JH", "AD"], (3, 8): ["JS", "10H"],
    (3, 9): ["AC", "KS"], (3, 10): ["QH", "KD"],
}


def items_anima_scenes(rows: list[Row], repo: Repo) -> list[Item]:
    """Photos of a game, two overlapping cards each, filed under both (:data:`ANIMA_SCENES`)."""
    out = []
    for p, m in matching(rows, r"matlab/input/Datensaetze/Spielsimulation/Spiel (\d+)/Spielzug_(\d+)\.(?:jpg|JPG)$"):
        game, move = int(m[1]), int(m[2])
        cards = ANIMA_SCENES.get((game, move), [])
        out += [Item(p, lab, f"spiel{game}_zug{move:02d}",
                     {"position": "bottom" if i == 0 else "top (partly covered)",
                      "other_cards_in_photo": [c for c in cards if c != lab]}) for i, lab in enumerate(cards)]
    return out


RDPONG_EXCLUDE = {"training/Jhearts.jpg"}  # defaced: scribbled over with a pen before committing


def items_rdpong(rows: list[Row], repo: Repo) -> list[Item]:
    """``training/<rank><suit>.jpg`` (``10hearts.jpg`` is 10H)."""
    return [Item(p, m[1] + SUITS_EN[m[2]], f"{m[1]}{m[2]}", {})
            for p, m in matching(rows, r"training/(10|[2-9AJQK])(clubs|diamonds|hearts|spades)\.jpg$")
            if p not in RDPONG_EXCLUDE]


def items_ece395(rows: list[Row], repo: Repo) -> list[Item]:
    """``dataset/<train|test>/<suit><rank>/...`` (T is 10) and the black joker as ``JOKER``."""
    base = r"Playing Card Classifier Model/dataset/(train|test)/"
    cards = [Item(p, ("10" if m[3] == "T" else m[3]) + m[2], f"{m[1]}_{int(m[4]):03d}", {})
             for p, m in matching(rows, base + r"([CDHS])([2-9TJQKA])/\2\3-(\d+)\.jpg$")]
    jokers = [Item(p, "JOKER", f"{m[1]}_{int(m[2]):03d}", {})
              for p, m in matching(rows, base + r"Black_Joker/Black_Joker-(\d+)\.jpg$")]
    return cards + jokers


def set_label(n: str, colour: str, shading: str, shape: str) -> str:
    """A SET card as number-colour-shape-shading (shape singular; shading solid, striped or open)."""
    shape = {"diamonds": "diamond", "ovals": "oval", "squiggles": "squiggle",
             "square": "diamond", "wave": "squiggle"}.get(shape, shape)
    shading = {"empty": "open", "dashed": "striped"}.get(shading, shading)
    return f"{n}-{colour}-{shape}-{shading}"


def _safe(stem: str) -> str:
    """The stem with each run of characters other than ASCII letters and digits made one ``_``."""
    return re.sub(r"[^A-Za-z0-9]+", "_", stem)


def items_setgame(rows: list[Row], repo: Repo) -> list[Item]:
    """``images_original/<train|test>/<nn>-<n>-<colour>-<shape>-<shading>/<name>.png``."""
    pattern = (r"images_original/(train|test)/\d\d-([123])-(red|green|purple)-"
               r"(square|oval|wave)-(solid|empty|dashed)/(.+)\.png$")
    return [Item(p, set_label(m[2], m[3], m[5], m[4]), f"{m[1]}_{_safe(m[6]).strip('_')}", {})
            for p, m in matching(rows, pattern)]


def items_tomwhite_crops(rows: list[Row], repo: Repo) -> list[Item]:
    """``data/train-v2/labelled/<n>-<colour>-<shading>-<shape>/<name>.jpg``."""
    pattern = (r"data/train-v2/labelled/([123])-(red|green|purple)-(solid|striped|empty)-"
               r"(diamonds?|ovals?|squiggles?)/(.+)\.jpg$")
    return [Item(p, set_label(m[1], m[2], m[3], m[4].rstrip("s")), _safe(m[5]), {})
            for p, m in matching(rows, pattern)]


# data/train/<colour>-<n>-*.jpg: 9 cards of one colour and number on a 3x3 grid; rows (top to
# bottom) solid, striped, empty; columns oval, diamond, squiggle (checked by eye on all 36 photos).
TW_ROWS = ["solid", "striped", "empty"]
TW_COLS = ["oval", "diamond", "squiggle"]
# Other scene photos come with a .txt listing their cards (one per line).
TW_LISTED = ["data/webcam/20170529_184024.png", "data/webcam/20170529_203823.png",
             "data/webcam/20170604_134005.png", "data/webcam/20170604_134234.png",
             "data/20170106_205743.jpg", "data/nine-cards-mixed-20161230_192740.jpg"]


def items_tomwhite_scenes(rows: list[Row], repo: Repo) -> list[Item]:
    """3x3 boards (:data:`TW_ROWS`, :data:`TW_COLS`) and mixed scenes listed in their ``.txt``."""
    out = []
    for p, m in matching(rows, r"data/train/(red|green|purple)-([123])-(\d+_\d+)\.jpg$"):
        cards = [set_label(m[2], m[1], sh, sp) for sh in TW_ROWS for sp in TW_COLS]
        out += [Item(p, lab, f"board_{m[1]}{m[2]}_{m[3]}",
                     {"grid_position_row_col": [i // 3, i % 3],
                      "other_cards_in_photo": [c for c in cards if c != lab]}) for i, lab in enumerate(cards)]
    sha = {p: s for p, s, _ in rows}
    for p in TW_LISTED:
        txt = p.rsplit(".", 1)[0] + ".txt"
        if p not in sha or txt not in sha:
            continue
        words = [line.split() for line in repo.blob(sha[txt]).decode().splitlines()]
        cards = [set_label(w[0], w[1], w[2], w[3].rstrip("s")) for w in words if len(w) == 4]
        stem = "mixed_" + _safe(p.split("/")[-1].rsplit(".", 1)[0])
        out += [Item(p, lab, stem, {"other_cards_in_photo": [c for c in cards if c != lab]}) for lab in cards]
    return out


def items_filhodeed(rows: list[Row], repo: Repo) -> list[Item]:
    """The photo crops ``datasets/cards/<rank>_of_<suit><2|3>.png``; the clean renders beside them
    (no digit, and ``ace_of_spades2.png``) are left out."""
    pattern = r"datasets/cards/(\d+|ace|jack|queen|king)_of_(clubs|diamonds|hearts|spades)([23])\.png$"
    return [Item(p, FACES_EN.get(m[1], m[1]) + SUITS_EN[m[2]], f"{m[1]}_of_{m[2]}{m[3]}", {})
            for p, m in matching(rows, pattern) if p != "datasets/cards/ace_of_spades2.png"]


def items_obind(rows: list[Row], repo: Repo) -> list[Item]:
    """``datasets/raw/<suit>_<rank>/img<n>.jpg``."""
    pattern = r"datasets/raw/(hearts|diamonds|clubs|spades)_(\d+|ace|jack|queen|king)/img(\d+)\.jpg$"
    return [Item(p, FACES_EN.get(m[2], m[2]) + SUITS_EN[m[1]], f"img{int(m[3]):03d}", {})
            for p, m in matching(rows, pattern)]


def items_yuchenrao(rows: list[Row], repo: Repo) -> list[Item]:
    """``old_data/<Rank>_<suit>_<n>.jpg`` (suit singular)."""
    pattern = r"old_data/(\d+|Ace|Jack|Queen|King)_(club|diamond|heart|spade)_(\d+)\.jpg$"
    return [Item(p, FACES_EN.get(m[1].lower(), m[1]) + SUITS_EN[m[2] + "s"], f"photo{int(m[3]):02d}", {})
            for p, m in matching(rows, pattern)]


DOBBLE_WEBCAM_DECKS = ("02", "04", "05", "06", "07")
"""The decks of the Dobble set captured with a web camera (``dobble_decks_readme.txt``): deck01
is cut from a slide show (renders) and deck03 from a flatbed scanner, so both are left out."""


def items_dobble(rows: list[Row], repo: Repo) -> list[Item]:
    """``dobble_dataset/dobble_deck<dd>_cards_55/<nn>/card<nn>_01.tif``, the web-camera decks
    (:data:`DOBBLE_WEBCAM_DECKS`) only; card ``nn`` is labelled ``dobble-nn``."""
    pattern = r"dobble_dataset/dobble_deck(\d\d)_cards_55/(\d\d)/card\2_01\.tif$"
    return [Item(p, f"dobble-{m[2]}", f"deck{m[1]}", {})
            for p, m in matching(rows, pattern) if m[1] in DOBBLE_WEBCAM_DECKS]


def items_objects(rows: list[Row], repo: Repo) -> list[Item]:
    """Photos of everyday things at the repository's top level, each under its own name (what
    a card finder must not take for a card: keyboards, a door, phones, a remote, rooms)."""
    pattern = r"^([A-Za-z]+)\.(jpe?g|png)$"
    return [Item(p, f"no-card-{m[1].lower()}", m[1].lower(), {}) for p, m in matching(rows, pattern)]


# ---- the sets ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PhotoSet:
    """One set: a repository at a commit, the rule picking and labelling its photos, and notes."""

    name: str
    repo: str  # OWNER/NAME on GitHub
    commit: str
    items: Callable[[list[Row], Repo], list[Item]]
    kind: str  # "crop", "full photo", "multi-card scene" or "no card"
    background: str
    notes: str
    max_per_label: int | None = None


SETS: tuple[PhotoSet, ...] = (
    PhotoSet("vosloo_piatnik", "Vosloo/playing-cards-detection", "8d091946331a686f668ed297987c6c22f44aee55",
             items_vosloo, "crop", "none (cropped to the card outline)",
             "One Piatnik deck, 9..A of 4 suits. 232x356 crops from phone/webcam photos; 'angle_1' only. "
             "Per card 3 lighting/white-balance conditions (files _0x, _1x, _2x) x 3 near-identical shots."),
    PhotoSet("anima_schnapsen_single", "AnimaNoProject/Detecting-playing-cards",
             "ca4dfaf1b5c8ac234425ca2988784eeffbdffd6a", items_anima_templates, "full photo", "dark green cloth",
             "20-card Schnapsen deck with French suits and German indices (B=J, D=Q, K, A, 10); card edges "
             "taped with black tape. One top-down photo per card, card fills ~45% of the picture."),
    PhotoSet("anima_schnapsen_scenes", "AnimaNoProject/Detecting-playing-cards",
             "ca4dfaf1b5c8ac234425ca2988784eeffbdffd6a", items_anima_scenes, "multi-card scene", "dark green cloth",
             "Same deck as anima_schnapsen_single. 25 photos of a game, each with 2 overlapping cards (one "
             "partly covered); each photo is filed under BOTH its cards (see files[].other_cards_in_photo). "
             "Labels assigned by eye, not from the repository."),
    PhotoSet("rdpong_bicycle", "rd-pong/EE326-Project-Playing-Card-Recognition",
             "5f8fe8412762e5bf30198d73fa679debc2469666", items_rdpong, "full photo",
             "dark red-brown wooden table / dark cloth",
             "USPCC/Bicycle-style poker deck, one phone photo per card (51 of 52: Jhearts excluded, scribbled "
             "over). Card fills ~30-70%; 2hearts has a white vignette added in an editor."),
    PhotoSet("ece395_ov7670", "vincentbanguyen/ECE395-Poker-Card-Classifier-Device",
             "4b91de6799c7985da811205dbfb45ba2a7266cf1", items_ece395, "crop",
             "none (card fills the whole 128x128 frame, edges cut)",
             "Bicycle deck seen by an OV7670 camera module in a fixed rig; 128x128, heavy green/blue cast, "
             "dark. Repository calls the set 'synthesized': many images are brightness/shift variants of a few "
             "captures (near-duplicates). 52 cards + black joker; 99 per card in the repo (train+test), 30 kept "
             "per card.", max_per_label=30),
    PhotoSet("setgame_alu82", "alu82/setsolver-card-classifier", "f8ffc12e25661a13b51deee675a595f7dfd8c4e0",
             items_setgame, "crop", "none (screenshot crops of the card face)",
             "The game SET (81 cards). Screenshot crops (~242x162) of a live phone/webcam view of one real "
             "deck; '(copy)' files removed as duplicates; the 'test_' image of a card is often a near-copy of "
             "one 'train_' image. Labels: number-colour-shape-shading."),
    PhotoSet("setgame_tomwhite_crops", "tomwhite/set-game", "bd047ece2f07e483f39fa41ba1170d9afd9a768c",
             items_tomwhite_crops, "crop", "none (card cut out and rectified, 171x267)",
             "The game SET, one deck. Cards cut from photos of boards of 27 cards taken at different times, "
             "lighting, angles and with different cameras (phone + DSLR). 146-180 crops per card in the repo; "
             "30 kept per card (even spread over the sorted file names).", max_per_label=30),
    PhotoSet("setgame_tomwhite_scenes", "tomwhite/set-game", "bd047ece2f07e483f39fa41ba1170d9afd9a768c",
             items_tomwhite_scenes, "multi-card scene", "black cloth / dark table",
             "Same deck as setgame_tomwhite_crops. 36 phone photos of 3x3 boards (one colour+number per board, "
             "4 photos per board; positions in files[].grid_position_row_col, layout read by eye) + 6 photos of "
             "9-15 mixed cards with the repo's own card lists (.txt). Each photo filed under every card it "
             "shows."),
    PhotoSet("yuchenrao_floor", "yuchenrao/EECS349-Card-Classification-Project",
             "9eb7a4d614f0843634ac032fa2536b19f32a7fbe", items_yuchenrao, "full photo", "grey speckled floor tiles",
             "Full 52-card Bicycle-style deck, 20 photos per card (800x600, 'old_data/'), camera looking down, "
             "card ~20-30% of the frame at many rotations, even indoor light. The repo's 'data/' and 'aug_data/' "
             "are tiny resized copies plus synthetic augmentations (not used)."),
    PhotoSet("obind_webcam_hearts", "obind/Card-Ai", "7730a5c62911dde6eb43dde4aab46770e9a24b28", items_obind,
             "full photo", "dark green cloth, hands often in frame",
             "Only the 13 hearts of one Bicycle-style deck. Webcam frames seen from above, card fills ~5-25% of "
             "the frame at many positions and angles, sometimes partly out of frame or held by fingers; dim, "
             "vignetted; a small red overlay mark in the top-left corner. 'datasets/raw' only (the repo's "
             "'processed' folders are low-res grey crops, not used)."),
    PhotoSet("filhodeed_bicycle_crops", "FilhoDeEd/Cards-Detector-2", "ed1d406bf42ecd6468ffeb07956e284c0913a93e",
             items_filhodeed, "crop", "none (card cut out and rectified)",
             "Bicycle-style deck, one dim greyish photo crop per card (files named *2.png; for the ace of spades "
             "ace_of_spades3.png). The same folder also holds clean RENDERS (names without a digit, and "
             "ace_of_spades2.png) which are NOT used."),
    PhotoSet("dobble_webcam_crops", "AlbertaBeef/dobble_buddy", "7cb9386b3adb03e128be7afc5d1fb719a98e8ba6",
             items_dobble, "crop", "dark desk around the round card (square crop of the disc)",
             "Dobble / Spot it!: 55 ROUND cards with 8 symbols each, no printed index. ~283x283 square web-camera "
             "crops of the disc, 5 per card (decks 02 and 04 by one author, 05/06/07 by another with 2K/4K/6K "
             "lighting: same card positions, so near-duplicates). Card numbers (folder names) agree across the "
             "decks (checked by eye on cards 12 and 30); deck01 (slide renders) and deck03 (scanner) left out."),
    PhotoSet("nocard_objects_azeecord", "Azeecord/mobilenet-vs-googlelens", "fda48bfa2e856cd1d5d5b9b2731fdc56b0496f3d",
             items_objects, "no card", "various", "No card: stock photos of a door, phones, a bag, shoes, a car."),
    PhotoSet("nocard_objects_advik20", "Advik20/Google-Lens-VS-MobileNet", "acaa8a9d26a33d815a5f340f2063466459b81801",
             items_objects, "no card", "various",
             "No card: stock photos of a keyboard, a phone, a remote, a watch, speakers, a mouse."),
    PhotoSet("nocard_objects_arjundev", "Arjundev123march/mobilenetvsmirsoftazure",
             "c52c7aef0734f2dafffba7de9120b655a2c83712", items_objects, "no card", "various",
             "No card: a laptop keyboard, a remote on a table, a mug, a pouch."),
    PhotoSet("nocard_objects_codingisfun", "Coding-is-fun123/google_vs_mobile",
             "576e1157444890a1f488041371be43ee2f4acba0", items_objects, "no card", "wooden table",
             "No card: phone photos of a keyboard, a binder, a bottle, glasses, a highlighter on a table."),
    PhotoSet("nocard_rooms_arturmogus", "Arturmogus/cocossd2", "b9647726dfe1fdd9fc03c78132feeef901f08269",
             items_objects, "no card", "rooms",
             "No card: phone photos of a door, beds, a bathroom, a cat on a floor."),
)

# Looked at and NOT used (kept here so SETS.md records why).
REJECTED = [
    ("mpszkudlarek/tarot-card-recognition", "Rider-Waite tarot, real phone photos (crops), but only 3 cards "
     "(Aces of cups, swords, pentacles) x 11 photos: too few labels."),
    ("notanumber11/Image-recognition-of-poker-cards", "few labelled single-card photos (mostly 2 of spades), "
     "rest unlabelled multi-card scenes mixed with stock images and webcam shots of people."),
    ("khacnguy/cards_recognition", "phone photos per card exist in history but almost all are >4 MiB and absent "
     "from the snapshot (5 readable)."),
    ("masarunakajima/playing_card_detection", "rank/suit corners cut from screenshots of a poker app (WSOP), not "
     "physical cards."),
    ("RHIT-fanh/Poker-Card-Recognition, rickcrawford/cards_dataset", "synthetic composites (geaxgx-style "
     "generator / Roboflow export of it)."),
    ("jacky1107/Poker-Card-Recognition", "2 test photos only; labels only as predictions."),
    ("AnimaNoProject datenbeispiel*.jpg", "2 photos of another (standard) deck, unlabelled."),
    ("FrannPizz/CV-Briscola-Project", "Italian 40-card deck, only 1 template crop per card; game videos not in "
     "the repo (not extracted, could be added)."),
    ("kmin817/Playing-Cards-Detection", "real-photo YOLO set, but no snapshot available."),
    ("vincentbanguyen 'Nothing' class, alu82 images/ (resized copies of images_original/)",
     "not card faces / duplicates."),
    ("AlbertaBeef/dobble_buddy deck01, deck03, test01", "deck01 cut from slide renders, deck03 from a flatbed "
     "scanner, test01 10 mixed photos; only the web-camera decks are used (dobble_webcam_crops)."),
    ("yy-suisse/Image_analysis_project", "EPFL IAPR 2021 custom deck (MNIST-style digits 0-9, J/Q/K, French "
     "suits): 7 games x 13 phone photos of 4 cards each with per-round CSVs, but multi-card scenes only, and "
     "game2.csv round 10 P1 was altered (KS; the photo and the course original in aalshabaan/iapr say KC); "
     "not built."),
    ("LukiRoth/JassCardDetector", "French-suited Swiss Jass deck, one raw photo per card; the 5-per-card "
     "'database' are synthetic augmentations (rotated, noised, pasted on black)."),
    ("aleker/PyHanafudaClassifier, schlafel/Dodelido", "real photos but only 1-2 per card."),
    ("Moikii/ADL_W23 (SHEL), wemaxon/tichu-card-detection, TaielRaffaeli/truco_app",
     "German-suited Jass / Tichu / Spanish-deck photos not committed (Google Drive or ignored data/)."),
    ("JiaYouChen2003/AI_Lab_Mid_Project", "tarot: 10 unlabelled test photos only."),
    ("PEI09-25-26/Sueca", "webcam card crops per folder, but of a standard French-suited deck."),
]


# ---- building ----------------------------------------------------------------------------------------

def open_mirror(photo_set: PhotoSet, mirrors: Path) -> Repo:
    """The set's mirror at its commit (``MIRRORS/OWNER+NAME/repo``, or its ``.git`` folder).

    Raises :class:`Missing`, with a one-line message naming the repository and the clone command,
    where the mirror or the commit is not there."""
    gitdir = mirrors / photo_set.repo.replace("/", "+", 1) / "repo"
    clone = f"git clone --bare https://github.com/{photo_set.repo} {gitdir}"
    if (gitdir / ".git").is_dir():
        gitdir = gitdir / ".git"
    if not gitdir.is_dir():
        raise Missing(f"[{photo_set.name}] no mirror of {photo_set.repo} at {gitdir}; get it with: {clone}")
    repo = Repo(gitdir, photo_set.commit)
    if not repo.has_commit():
        raise Missing(f"[{photo_set.name}] commit {photo_set.commit} of {photo_set.repo} is not in {gitdir}; "
                      f"move it aside and clone it afresh: {clone}")
    return repo


def shrink(img: np.ndarray) -> np.ndarray:
    """The image with its longest side at most :data:`MAX_SIDE` (area interpolation)."""
    h, w = img.shape[:2]
    s = MAX_SIDE / max(h, w)
    if s < 1.0:
        img = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    return img


def label_key(lab: str) -> tuple[int, int, int, str]:
    """Playing cards by suit (C, D, H, S) then rank (2..A), then every other label by name."""
    m = re.match(r"^(10|[2-9JQKA])([CDHS])$", lab)
    if m:
        ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
        return (0, "CDHS".index(m.group(2)), ranks.index(m.group(1)), lab)
    return (1, 0, 0, lab)


def spread(items: list[Item], cap: int | None) -> list[Item]:
    """At most ``cap`` items per label, evenly spread over the sorted file names (all where no cap)."""
    if not cap:
        return items
    keep: list[Item] = []
    by_label: dict[str, list[Item]] = {}
    for it in items:
        by_label.setdefault(it.label, []).append(it)
    for its in by_label.values():
        if len(its) > cap:
            its = [its[round(i * (len(its) - 1) / (cap - 1))] for i in range(cap)]
        keep.extend(its)
    return sorted(keep, key=ITEM_ORDER)


Decoded = tuple[bytes, tuple[int, int], tuple[int, int], str]  # JPEG, original w h, new w h, pixel hash


def decode(data: bytes) -> Decoded | None:
    """A file re-encoded as a shrunk JPEG, with its sizes and pixel hash; None where unreadable."""
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    if img is None:
        return None
    small = shrink(img)
    _, enc = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    h, w = img.shape[:2]
    return enc.tobytes(), (w, h), (small.shape[1], small.shape[0]), hashlib.sha1(img.tobytes()).hexdigest()


def build_set(photo_set: PhotoSet, mirrors: Path, out_root: Path) -> dict[str, Any]:
    """Write ``OUT/sets/<name>/`` afresh from the mirror and return the set's SETS.json entry.

    Raises :class:`Missing` (before touching the folder) where the mirror or commit is missing."""
    repo = open_mirror(photo_set, mirrors)
    rows = repo.ls()
    sha_of = {p: s for p, s, _ in rows}
    items = sorted(photo_set.items(rows, repo), key=ITEM_ORDER)
    n_available = len(items)
    cap = photo_set.max_per_label
    items = spread(items, cap)
    set_dir = out_root / "sets" / photo_set.name
    if set_dir.is_dir():
        shutil.rmtree(set_dir)
    files: dict[str, list[dict[str, Any]]] = {}
    skipped: list[str] = []
    dups: list[dict[str, str]] = []
    seen: dict[tuple[str, str], str] = {}  # (label, pixel hash) -> file name
    decoded: dict[str, Decoded | None] = {}
    for path, lab, stem, info in items:
        sha = sha_of[path]
        if sha not in decoded:
            decoded[sha] = decode(repo.blob(sha))
        d = decoded[sha]
        if d is None:
            skipped.append(path)
            continue
        enc, orig_wh, new_wh, pixhash = d
        if (lab, pixhash) in seen:
            dups.append({"label": lab, "path": path, "same_as": seen[(lab, pixhash)]})
            continue
        lab_dir = set_dir / lab
        lab_dir.mkdir(parents=True, exist_ok=True)
        fname, n = f"{stem}.jpg", 2
        while (lab_dir / fname).exists():
            fname, n = f"{stem}_{n}.jpg", n + 1
        (lab_dir / fname).write_bytes(enc)
        seen[(lab, pixhash)] = fname
        files.setdefault(lab, []).append({"name": fname, "source": path, "orig_size": list(orig_wh),
                                          "size": list(new_wh), **info})
    labels = sorted(files, key=label_key)
    counts = [len(files[lab]) for lab in labels]
    meta = {"repository": photo_set.repo, "url": f"https://github.com/{photo_set.repo}",
            "commit": photo_set.commit, "licence": repo.licence(rows), "kind": photo_set.kind,
            "full_scene": photo_set.kind != "crop", "background": photo_set.background, "notes": photo_set.notes,
            "max_per_label": cap, "n_available_in_repo": n_available, "n_labels": len(labels),
            "n_photos": sum(counts),
            "n_distinct_source_images": len({r["source"] for lab in labels for r in files[lab]}),
            "photos_per_label_min": min(counts, default=0), "photos_per_label_max": max(counts, default=0),
            "skipped_unreadable": skipped, "dropped_duplicates": dups,
            "files": {lab: files[lab] for lab in labels}}
    print(f"[{photo_set.name}] {meta['n_labels']} labels, {meta['n_photos']} photos "
          f"({meta['photos_per_label_min']}-{meta['photos_per_label_max']}/label), "
          f"{len(skipped)} unreadable, {len(dups)} duplicates dropped")
    return meta


def contact_sheet(name: str, meta: dict[str, Any], out_root: Path, n: int = 12, tile: int = 256) -> None:
    """``OUT/sheets/<name>.png``: the first photo of ``n`` labels spread over the set, six a row."""
    labels = list(meta["files"])
    if not labels:
        return
    if len(labels) > n:
        labels = [labels[round(i * (len(labels) - 1) / (n - 1))] for i in range(n)]
    tiles = []
    for lab in labels:
        rec = meta["files"][lab][0]
        img = cv2.imread(str(out_root / "sets" / name / lab / rec["name"]))
        assert img is not None, rec["name"]  # written by build_set just before
        h, w = img.shape[:2]
        s = tile / max(h, w)
        img = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
        t = np.full((tile + 22, tile, 3), 255, np.uint8)
        t[:img.shape[0], :img.shape[1]] = img
        cv2.putText(t, f"{lab}  {rec['name']}"[:40], (3, tile + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.42,
                    (0, 0, 200), 1, cv2.LINE_AA)
        tiles.append(t)
    cols = 6
    while len(tiles) % cols:
        tiles.append(np.full_like(tiles[0], 255))
    sheet = np.vstack([np.hstack(tiles[i:i + cols]) for i in range(0, len(tiles), cols)])
    (out_root / "sheets").mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out_root / "sheets" / f"{name}.png"), sheet)


def write_md(all_meta: dict[str, dict[str, Any]], path: Path) -> None:
    """SETS.md: one table row per set, and the repositories looked at and not used."""
    lines = ["# Real-photo development sets (ducktable)", "",
             "Built by `python -m ducktable.bench.photo_sets` from public GitHub repositories at fixed commits "
             "(full per-file provenance in `SETS.json`). Keep outside any project repository: most sources "
             "carry no licence at all (see the licence column); use for local development/evaluation only.", "",
             "| set | repository | commit | licence | labels | photos (distinct source images) | "
             "photos per label (min-max) | kind | background | notes |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, m in all_meta.items():
        lines.append(f"| {name} | {m['repository']} | {m['commit']} | {m['licence'] or 'none found'} | "
                     f"{m['n_labels']} | {m['n_photos']} ({m['n_distinct_source_images']}) | "
                     f"{m['photos_per_label_min']}-{m['photos_per_label_max']} | {m['kind']} | "
                     f"{m['background']} | {m['notes']} |")
    lines += ["", "Kinds: *full photo* = one card on a background, whole camera frame; *crop* = image cut to "
              "(or filling) the card; *multi-card scene* = several cards in one photo, filed under each card it "
              "shows (see `files[label][i].other_cards_in_photo` in SETS.json).", "",
              "## Looked at, not used", ""]
    lines += [f"- {repo}: {why}" for repo, why in REJECTED]
    lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")


# ---- command line ------------------------------------------------------------------------------------

def work_tree_of(path: Path) -> Path | None:
    """The git work tree ``path`` lies in (the nearest folder above it with a ``.git``), or None."""
    for folder in (path, *path.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _epilog() -> str:
    lines = ["Mirrors: each set is read from a bare clone of its repository at MIRRORS/OWNER+NAME/repo:",
             "  git clone --bare https://github.com/OWNER/NAME MIRRORS/OWNER+NAME/repo", "",
             "Sets (name, repository, commit):"]
    lines += [f"  {s.name:26} {s.repo} {s.commit}" for s in SETS]
    lines += ["", f"OUT defaults to {DEFAULT_OUT} and must lie outside every git work tree:",
              "the photos are third-party and never enter a repository."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Build the sets asked for; 0 when all were built, 1 when a mirror or commit was missing."""
    parser = argparse.ArgumentParser(prog="python -m ducktable.bench.photo_sets",
                                     description="Rebuild the real-photo development sets from bare git mirrors.",
                                     epilog=_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirrors", type=Path, required=True, help="folder holding the bare git mirrors")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--only", default="", help="comma-separated set names (default: all)")
    args = parser.parse_args(argv)
    only = set(filter(None, args.only.split(",")))
    unknown = sorted(only - {s.name for s in SETS})
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}; known: {', '.join(s.name for s in SETS)}")
    out = args.out.expanduser().resolve()
    tree = work_tree_of(out)
    if tree is not None:
        print(f"refusing --out {out}: it lies inside the git work tree {tree}, and the photos must never enter a "
              f"repository; choose a folder outside it (default {DEFAULT_OUT})", file=sys.stderr)
        return 2
    if shutil.which("git") is None:
        print("the git command is needed to read the mirrors and was not found", file=sys.stderr)
        return 2
    sets_dir = out / "sets"
    sets_dir.mkdir(parents=True, exist_ok=True)
    json_path = sets_dir / "SETS.json"
    all_meta: dict[str, dict[str, Any]] = {}
    if only and json_path.exists():
        all_meta = json.loads(json_path.read_text(encoding="utf-8"))
    missing = 0
    for photo_set in SETS:
        if only and photo_set.name not in only:
            continue
        try:
            meta = build_set(photo_set, args.mirrors.expanduser(), out)
        except Missing as e:
            print(e, file=sys.stderr)
            all_meta.pop(photo_set.name, None)
            missing += 1
            continue
        all_meta[photo_set.name] = meta
        contact_sheet(photo_set.name, meta, out)
    order = [s.name for s in SETS]
    all_meta = {k: all_meta[k] for k in order if k in all_meta}
    json_path.write_text(json.dumps(all_meta, indent=1) + "\n", encoding="utf-8")
    write_md(all_meta, sets_dir / "SETS.md")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
