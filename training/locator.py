"""Train the card locator on rendered tables and ship it: ``python -m ducktable.training.locator``.

Why it is built this way:

* **Only rendered tables** (:func:`ducktable.sim.scene.render_scene`, the bench's kind of
  scene: 4-20 cards of one game, any surface, clutter and hands, a few empty tables), from
  seeds no benchmark or test reads. Rendering costs more than a training step, so each
  table is rendered once, shrunk as the locator shrinks frames, and reused every epoch, flipped
  at random and with other light.
* **And table-video frames** (:func:`video_examples`, ``--videos``): the DUCK, Grey Duck and
  Bruce videos' frames, taken at 1920 x 1080 or 1280 x 720 and read as ``ducktable run`` reads
  them. Their cards are small (about 12 px across at the network's input) and lie on whatever
  cover the table has; on a striped cloth the locator trained on scenes alone missed a third of
  them at one capture size and none at the other, as the stripes fell on the cards.
* **Fine-tuned, not retrained** (``--from-onnx``): from scratch is over an hour on two cores;
  the shipped weights are read back from the ONNX file (:func:`load_onnx`) and trained a few
  epochs on the video frames mixed with scene tables, so the scenes are not forgotten.
* **Centres and corners, not boxes.** A card seen at a slant is no upright box. The network
  marks each card's centre with a peak (a Gaussian a sixth of the card's short side wide, as
  CenterNet does for objects) and, at the cells near it, regresses the four corners. A card
  looks the same turned half way, and a corner can be called "first" from either side, so the
  corner loss takes the best of the four cyclic orders of the truth.
* **Small and quarter-size.** 320 x 180 in, 80 x 45 cells out, about 0.2 M parameters: a few
  milliseconds on one core, so that the whole read of a frame fits in 40 ms.
  :mod:`ducktable.vision.detect` fits the rough outlines to the frame's edges afterwards.

Torch is imported only inside the functions that need it (the ``train`` extra); the example
maker and the targets work without it and are what CI tests.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from ducktable.vision.classify import file_sha256, manifest_path
from ducktable.vision.locator import CELL_SMALL, LOCATOR_FILE, MEAN, SHRINK, as_input, shrunk
from ducktable.vision.model_files import training_command

FIRST_SEED = 1_000_000
"""Training tables are scene seeds from here on; the bench and tests read none of them."""
EMPTY_EVERY = 12
"""Every twelfth training table has no cards (clutter and hands only)."""
THRESHOLD = 0.3
"""A centre peak above this is a card to fit and check (chosen with the checks of
:func:`ducktable.vision.detect._fitted` on 200 tables no benchmark reads: 0.12-0.25 found no
more cards and more false ones)."""


# ---- examples and targets (numpy + opencv only) ---------------------------------------------
def rendered_example(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Training table ``seed`` as the network sees it: the shrunk frame (BGR uint8) and its
    cards' corners in its pixels (n x 4 x 2 float32, clockwise)."""
    from ducktable.sim.scene import render_scene

    scene = render_scene(seed, empty=seed % EMPTY_EVERY == 0)
    h, w = scene.image.shape[:2]
    small = shrunk(scene.image)
    scale = np.array([small.shape[1] / w, small.shape[0] / h], np.float32)
    quads = np.array([card.quad * scale for card in scene.cards], np.float32).reshape(-1, 4, 2)
    return small, quads


VIDEO_FIRST_SEED = 5_000_000
"""Table videos for training are game and background seeds from here on (whole-game
measurements read 0-19, ``bench reader`` 0 and 7, tests small ones)."""
VIDEO_GAMES = ("duck", "grey", "bruce")
"""The games with a rendered table video, taken in turn by seed."""
VIDEO_FRAMES = 8
"""Frames taken from each training video: its table and camera are drawn once, so several
frames of one game cost little more than one."""
VIDEO_CAPTURES = ((1920, 1080), (1280, 720))
"""The Pi camera's main stream, read at 1280 x 720, and pictures taken at the reading size:
the stripes of a cloth fall differently on the cards at each."""
SEEN_ENOUGH = 0.5
"""A card that hands or cards laid on it hide more than half of is no target: the network is
not asked to guess cards under hands, and a pile is found by its top card."""


def video_script(game: str, seed: int, players: int) -> tuple[list[Any], Any]:
    """Game ``seed``'s bot play as its table video's frames (shots) and its table layout,
    built as the whole-game replays build them."""
    import random

    from ducktable.sim import table_video
    from ducktable.vision.game_layouts import bruce_layout, grey_layout
    from ducktable.vision.layout import duck_layout

    if game == "duck":
        shots = table_video.script_for(table_video.bot_game("duck", seed, players), seed)
        return shots, duck_layout(players)
    if game == "grey":
        from ducktable.sim.table_video_grey import grey_bot_game, grey_script

        grey, happenings = grey_bot_game(seed, players)
        return grey_script(grey, happenings, random.Random(seed)).shots, grey_layout(players)
    if game == "bruce":
        from ducktable.sim.table_video_bruce import bruce_bot_game, bruce_script

        bruce = bruce_bot_game(seed, players)
        return bruce_script(bruce, random.Random(seed)).shots, bruce_layout(players)
    raise ValueError(f"no table video for {game!r}")


def video_examples(seed: int, frames: int = VIDEO_FRAMES) -> list[tuple[np.ndarray, np.ndarray]]:
    """``frames`` frames of training video ``seed`` as the network sees them (see
    :func:`rendered_example`): a DUCK, Grey Duck or Bruce game of 3-5 players, one camera
    look and capture size for the video, half the frames with a hand over the table. Each
    picture is read as ``run`` reads it (:func:`~ducktable.vision.reader.reading_view`), then
    shrunk; cards mostly under a hand are left out."""
    from ducktable.sim.table_video import TableRenderer
    from ducktable.vision.augment import CaptureLook
    from ducktable.vision.reader import reading_view

    rng = np.random.default_rng([seed, 0x10C])
    game = VIDEO_GAMES[seed % len(VIDEO_GAMES)]
    players = int(rng.integers(3, 6))
    shots, layout = video_script(game, seed, players)
    size = VIDEO_CAPTURES[int(rng.integers(len(VIDEO_CAPTURES)))]
    renderer = TableRenderer(game, layout, seed, look=CaptureLook.random(rng),
                             capture_size=None if size == (1280, 720) else size)
    # a frame with cards on the table, past the deal's first frames
    laid = [k for k, shot in enumerate(shots) if any(cards for _, cards in shot.zones)]
    clear = [k for k in laid if not shots[k].covered]
    handed = [k for k in laid if shots[k].covered]
    picks = list(rng.choice(clear, min(len(clear), frames - frames // 2), replace=False))
    picks += list(rng.choice(handed, min(len(handed), frames // 2), replace=False))
    made = []
    for k in sorted(int(k) for k in picks):
        picture, hands = renderer.frame_and_hands(shots[k], k)
        view, _ = reading_view(picture)
        small = shrunk(view)
        scale = np.array([small.shape[1] / picture.shape[1], small.shape[0] / picture.shape[0]],
                         np.float32)
        seen = _seen_cards(renderer.card_quads(shots[k]), hands)
        quads = np.array([quad * scale for quad in seen], np.float32).reshape(-1, 4, 2)
        made.append((small, quads))
    return made


def _seen_cards(quads: Sequence[np.ndarray], hands: np.ndarray) -> list[np.ndarray]:
    """The cards of ``quads`` (in the order drawn: a later one lies on top) of which at least
    :data:`SEEN_ENOUGH` shows past the hands (``hands``: 255 = hand) and the cards above: a
    pile, stacked askew, is its top card to the network."""
    covered = hands > 0
    seen = []
    for quad in reversed(quads):
        inside = np.zeros(covered.shape, np.uint8)
        cv2.fillConvexPoly(inside, np.round(quad).astype(np.int32), 1)
        mine = inside > 0
        area = int(np.count_nonzero(mine))
        if area and np.count_nonzero(mine & ~covered) >= SEEN_ENOUGH * area:
            seen.append(quad)
        covered |= mine
    return seen[::-1]


@dataclass
class Examples:
    """Rendered tables held in memory: ``images`` (n x h x w x 3 uint8), every card's corners
    in one array and where each table's cards start in it."""

    images: np.ndarray
    quads: np.ndarray
    starts: np.ndarray
    counts: np.ndarray

    @classmethod
    def render(cls, seeds: Sequence[int], jobs: int = 2, progress: bool = True) -> Examples:
        from tqdm import tqdm

        with Pool(jobs) as pool:
            made = list(tqdm(pool.imap(rendered_example, seeds, chunksize=16), total=len(seeds),
                             desc="rendering tables", unit="table", disable=not progress,
                             mininterval=5.0))
        return cls.of(made)

    @classmethod
    def render_videos(cls, seeds: Sequence[int], jobs: int = 2, progress: bool = True) -> Examples:
        """:data:`VIDEO_FRAMES` frames of each training video ``seeds`` (:func:`video_examples`)."""
        from tqdm import tqdm

        with Pool(jobs) as pool:
            made = list(tqdm(pool.imap(video_examples, seeds), total=len(seeds),
                             desc="rendering videos", unit="video", disable=not progress,
                             mininterval=5.0))
        return cls.of([example for frames in made for example in frames])

    @classmethod
    def of(cls, made: Sequence[tuple[np.ndarray, np.ndarray]]) -> Examples:
        """Shrunk frames of one size and their cards' corners, held together."""
        counts = np.array([len(q) for _, q in made])
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(int)
        quads = np.concatenate([q for _, q in made]) if counts.sum() else \
            np.zeros((0, 4, 2), np.float32)
        return cls(np.stack([im for im, _ in made]), quads, starts, counts)

    def __len__(self) -> int:
        return len(self.images)

    def first(self, n: int) -> Examples:
        """The first ``n`` tables."""
        return Examples(self.images[:n], self.quads, self.starts[:n], self.counts[:n])

    def __add__(self, other: Examples) -> Examples:
        return Examples(np.concatenate([self.images, other.images]),
                        np.concatenate([self.quads, other.quads]),
                        np.concatenate([self.starts, other.starts + len(self.quads)]),
                        np.concatenate([self.counts, other.counts]))

    def cards_of(self, index: int) -> np.ndarray:
        return self.quads[self.starts[index]:self.starts[index] + self.counts[index]]


def targets(quads: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the network should answer for cards ``quads`` (shrunk-frame pixels):

    * centre heat (rows x cols): 1 at the cell holding each centre, a Gaussian around it;
    * corners (8 x rows x cols): where each cell near a centre sees its card's corners, as
      x, y offsets from the cell's centre in cells (:func:`ducktable.vision.locator.decode`);
    * weight (rows x cols): how much each cell's corners count (0 away from every centre; a
      cell near two centres answers for the nearer).
    """
    heat = np.zeros((rows, cols), np.float32)
    corners = np.zeros((8, rows, cols), np.float32)
    weight = np.zeros((rows, cols), np.float32)
    ys, xs = np.mgrid[0:rows, 0:cols].astype(np.float32) + 0.5
    for quad in quads:
        in_cells = quad / CELL_SMALL
        cx, cy = in_cells.mean(axis=0)
        sides = np.linalg.norm(in_cells - np.roll(in_cells, -1, axis=0), axis=1)
        sigma = max(0.5, float(min(sides[0] + sides[2], sides[1] + sides[3])) / 12)
        bump = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma * sigma))
        row, col = min(max(int(cy), 0), rows - 1), min(max(int(cx), 0), cols - 1)
        bump[row, col] = 1.0
        heat = np.maximum(heat, bump)
        mine = (bump > 0.3) & (bump >= weight)
        for k in range(4):
            corners[2 * k][mine] = (in_cells[k, 0] - xs)[mine]
            corners[2 * k + 1][mine] = (in_cells[k, 1] - ys)[mine]
        weight[mine] = bump[mine]
    return heat, corners, weight


def varied(image: np.ndarray, quads: np.ndarray, rng: np.random.Generator
           ) -> tuple[np.ndarray, np.ndarray]:
    """The table flipped at random (corners kept clockwise) and in other light: float32
    pixels 0-255 and the moved corners."""
    h, w = image.shape[:2]
    quads = quads.copy()
    if rng.random() < 0.5:
        image = image[:, ::-1]
        quads[..., 0] = w - quads[..., 0]
        quads = quads[:, ::-1]
    if rng.random() < 0.5:
        image = image[::-1]
        quads[..., 1] = h - quads[..., 1]
        quads = quads[:, ::-1]
    pixels = image.astype(np.float32) * np.float32(rng.uniform(0.75, 1.25))
    pixels += np.float32(rng.uniform(-25, 25))
    pixels *= rng.uniform(0.9, 1.1, size=3).astype(np.float32)
    return np.clip(pixels, 0, 255), np.ascontiguousarray(quads)


def batches(examples: Examples, size: int, rng: np.random.Generator
            ) -> Iterator[tuple[np.ndarray, ...]]:
    """One epoch in random order: (input, heat, corners, weight) arrays per batch."""
    order = rng.permutation(len(examples))
    rows, cols = output_grid(examples.images.shape[1:3])
    for first in range(0, len(order) - size + 1, size):
        xs, heats, corners, weights = [], [], [], []
        for index in order[first:first + size]:
            pixels, quads = varied(examples.images[index], examples.cards_of(index), rng)
            heat, corner, weight = targets(quads, rows, cols)
            xs.append(as_input(pixels))
            heats.append(heat)
            corners.append(corner)
            weights.append(weight)
        yield (np.stack(xs).astype(np.float32), np.stack(heats), np.stack(corners),
               np.stack(weights))


def output_grid(shape: Sequence[int]) -> tuple[int, int]:
    """The network's output rows and columns for a shrunk frame of ``shape`` (three halvings
    with padding, then one doubling)."""
    rows, cols = int(shape[0]), int(shape[1])
    for _ in range(2):
        rows, cols = (rows + 1) // 2, (cols + 1) // 2
    return rows, cols


# ---- the network and its training (torch) ---------------------------------------------------
def build_network(width: int = 32) -> Any:
    """Two strides of 2 to 80 x 45, two blocks there, a stride to 40 x 23 with widening
    dilations (a card's whole outline in view), back up and added, two blocks, one 1 x 1 head:
    channel 0 the centre's logit, 1-8 the corners."""
    import torch
    from torch import nn

    def block(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, padding=dilation,
                                       dilation=dilation, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    class Finder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.s1 = nn.Sequential(block(3, 16, 2), block(16, width, 2), block(width, width),
                                    block(width, width))
            self.s2 = nn.Sequential(block(width, 2 * width, 2), block(2 * width, 2 * width),
                                    block(2 * width, 2 * width, dilation=2),
                                    block(2 * width, 2 * width, dilation=4))
            self.reduce = nn.Conv2d(2 * width, width, 1)
            self.fuse = block(width, width)
            self.fuse2 = block(width, width)
            self.head = nn.Conv2d(width, 9, 1)
            bias = self.head.bias
            assert bias is not None
            with torch.no_grad():
                bias[0] = -2.2  # start near "no card anywhere"

        def forward(self, x: Any) -> Any:
            near = self.s1(x)
            far = nn.functional.interpolate(self.reduce(self.s2(near)), scale_factor=2.0,
                                            mode="nearest")
            far = far[:, :, :near.shape[2], :near.shape[3]]
            return self.head(self.fuse2(self.fuse(near + far)))

    return Finder()


def load_onnx(net: Any, path: Path) -> Any:
    """``net`` (:func:`build_network`) with the weights of the exported model ``path``, to
    train on from there. The export folded each BatchNorm into its convolution, so each
    convolution takes the folded weights and its BatchNorm passes them through unchanged
    (scale 1, shift the folded bias, mean 0, variance 1 - eps); :func:`train` with
    ``frozen_norms`` keeps it so. Convolutions are matched in the order the graph runs them,
    their shapes, strides and dilations checked."""
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    graph = onnx.load(str(path)).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [node for node in graph.node if node.op_type == "Conv"]
    mine = [m for m in net.modules() if isinstance(m, nn.Conv2d)]
    if len(convs) != len(mine):
        raise ValueError(f"{path}: {len(convs)} convolutions, the network has {len(mine)}")
    norms = {id(seq[0]): seq[1] for seq in net.modules()
             if isinstance(seq, nn.Sequential) and len(seq) == 3 and isinstance(seq[1], nn.BatchNorm2d)}
    with torch.no_grad():
        for node, conv in zip(convs, mine, strict=True):
            attrs = {a.name: list(a.ints) for a in node.attribute}
            kernel, bias = weights[node.input[1]], weights[node.input[2]]
            if (kernel.shape != tuple(conv.weight.shape) or attrs.get("strides", [1, 1]) != list(conv.stride)
                    or attrs.get("dilations", [1, 1]) != list(conv.dilation)):
                raise ValueError(f"{path}: convolution {node.name} does not fit {conv}")
            conv.weight.copy_(torch.from_numpy(np.array(kernel)))
            norm = norms.get(id(conv))
            if norm is None:
                assert conv.bias is not None
                conv.bias.copy_(torch.from_numpy(np.array(bias)))
                continue
            assert norm.running_mean is not None and norm.running_var is not None
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(np.array(bias)))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
    return net.eval()


def centre_loss(logits: Any, heat: Any) -> Any:
    """CenterNet's focal loss: the centre cells pulled to 1, the rest to 0 except near a
    centre, where wrongly high answers are forgiven in proportion."""
    import torch

    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    centre = (heat > 0.99).float()
    pulled = -torch.log(p) * (1 - p) ** 2 * centre
    pushed = -torch.log(1 - p) * p ** 2 * (1 - heat) ** 4 * (1 - centre)
    return (pulled.sum() + pushed.sum()) / centre.sum().clamp(min=1)


def corner_loss(predicted: Any, truth: Any, weight: Any) -> Any:
    """L1 distance in cells to the truth's corners in the best of their four cyclic orders."""
    import torch

    n, _, rows, cols = truth.shape
    as_corners = truth.view(n, 4, 2, rows, cols)
    losses = [(predicted - torch.roll(as_corners, shifts=s, dims=1).view_as(truth)).abs().sum(1)
              for s in range(4)]
    best = torch.stack(losses).min(0).values
    return (best * weight).sum() / weight.sum().clamp(min=1)


def train(net: Any, examples: Examples, epochs: int, *, batch: int = 32, lr: float = 3e-3,
          seed: int = 0, threads: int = 2, progress: bool = True, frozen_norms: bool = False) -> Any:
    """Optimise ``net`` for ``epochs`` passes over ``examples``; returns it in eval mode.
    ``frozen_norms``: every BatchNorm keeps its running statistics and normalises with them
    (for weights from :func:`load_onnx`, whose BatchNorms only pass the folded biases on;
    batch statistics would change what the network answers from the first step)."""
    import torch
    from torch import nn
    from tqdm import tqdm

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    per_epoch = len(examples) // batch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=epochs * per_epoch,
                                                pct_start=0.15)
    rng = np.random.default_rng(seed)
    net.train()
    if frozen_norms:
        for module in net.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.eval()
    bar = tqdm(total=epochs * per_epoch, desc="training", unit="step", disable=not progress,
               mininterval=5.0)
    for _ in range(epochs):
        for x, heat, corners, weight in batches(examples, batch, rng):
            y = net(torch.from_numpy(x))
            loss = centre_loss(y[:, 0], torch.from_numpy(heat)) + corner_loss(
                y[:, 1:], torch.from_numpy(corners), torch.from_numpy(weight))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            bar.update()
            bar.set_postfix(loss=f"{loss.item():.3f}", refresh=False)
    bar.close()
    net.eval()
    return net


def export_onnx(net: Any, path: Path) -> None:
    """The graph with any frame size (dynamic height and width), preprocessing in metadata."""
    import onnx
    import torch

    torch.onnx.export(net, (torch.zeros(1, 3, 180, 320),), str(path), input_names=["image"],
                      output_names=["cells"],
                      dynamic_axes={"image": {2: "height", 3: "width"},
                                    "cells": {2: "rows", 3: "cols"}},
                      opset_version=17, dynamo=False)
    proto = onnx.load(str(path))
    entry = proto.metadata_props.add()
    entry.key, entry.value = "preprocessing", json.dumps(_input_spec())
    onnx.save(proto, str(path))


def _input_spec() -> dict[str, Any]:
    return {"shrink": SHRINK, "cell": CELL_SMALL, "mean": MEAN, "channel_order": "BGR",
            "scale": "1/255", "resize": "area"}


def write_manifest(model_path: Path, threshold: float, training: dict[str, Any]) -> None:
    manifest = {"format": 1, "model_file": model_path.name, "sha256": file_sha256(model_path),
                **_input_spec(), "threshold": threshold, "training": training}
    manifest_path(model_path).write_text(json.dumps(manifest, indent=1) + "\n",
                                         encoding="utf-8")


# ---- command line ----------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ducktable.training.locator",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent
                        / "models", help="folder for the model and its manifest")
    parser.add_argument("--tables", type=int, default=13_500,
                        help="rendered training tables (default 13,500)")
    parser.add_argument("--first-tables", type=int, default=6_000,
                        help="tables of the first round, trained from scratch (default 6,000)")
    parser.add_argument("--epochs", type=int, default=8, help="passes in each round (default 8)")
    parser.add_argument("--jobs", type=int, default=2, help="processes rendering tables")
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--from-onnx", type=Path, default=None, metavar="PATH",
                        help="fine-tune this exported locator instead of training from scratch: "
                             "one round of --epochs on --tables tables and the --videos' frames")
    parser.add_argument("--videos", type=int, default=0,
                        help=f"table videos to train on too, {VIDEO_FRAMES} frames each, seeds from "
                             f"{VIDEO_FIRST_SEED:,} (default 0)")
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (default 3e-3)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="keep the rendered examples in this .npz and use them again")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("training needs PyTorch: pip install -e '.[train]' (or run `make locator`)",
              file=sys.stderr)
        return 2
    start = time.perf_counter()
    examples = _examples(args)
    net = build_network()
    if args.from_onnx is not None:
        load_onnx(net, args.from_onnx)
        train(net, examples, args.epochs, lr=args.lr, seed=args.seed, threads=args.threads,
              frozen_norms=True)
    else:
        train(net, examples.first(args.first_tables), args.epochs, lr=args.lr, seed=args.seed,
              threads=args.threads)
        train(net, examples, args.epochs, lr=args.lr, seed=args.seed + 1, threads=args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    model_path = args.out / LOCATOR_FILE
    with tempfile.TemporaryDirectory() as tmp, torch.no_grad():
        draft = Path(tmp) / LOCATOR_FILE
        export_onnx(net, draft)
        model_path.write_bytes(draft.read_bytes())
    command = f"python -m ducktable.training.locator --tables {args.tables} "
    if args.from_onnx is None:
        command += f"--first-tables {args.first_tables} "
    else:
        command += f"--from-onnx {args.from_onnx} "
    if args.videos:
        command += f"--videos {args.videos} "
    command += f"--epochs {args.epochs} --lr {args.lr:g} --seed {args.seed}"
    training: dict[str, Any] = {"command": command, "tables": args.tables}
    if args.from_onnx is not None:  # as the classifier's manifest tells a fine-tuning
        training["init"] = file_sha256(args.from_onnx)
        training["init_command"] = training_command(args.from_onnx)
    if args.videos:
        training["video_frames"] = args.videos * VIDEO_FRAMES
        training["video_seeds"] = [VIDEO_FIRST_SEED, VIDEO_FIRST_SEED + args.videos - 1]
    training["seconds"] = round(time.perf_counter() - start)
    write_manifest(model_path, THRESHOLD, training)
    print(f"wrote {model_path} and {manifest_path(model_path)}")
    return 0


def _examples(args: argparse.Namespace) -> Examples:
    """The rendered tables and video frames ``args`` ask for, from ``args.cache`` when it
    holds them (rendering takes longer than fine-tuning)."""
    if args.cache is not None and args.cache.exists():
        kept = np.load(args.cache)
        if (int(kept["tables"]), int(kept["videos"])) == (args.tables, args.videos):
            return Examples(kept["images"], kept["quads"], kept["starts"], kept["counts"])
    examples = Examples.render(range(FIRST_SEED, FIRST_SEED + args.tables), args.jobs)
    if args.videos:
        examples = examples + Examples.render_videos(
            range(VIDEO_FIRST_SEED, VIDEO_FIRST_SEED + args.videos), args.jobs)
    if args.cache is not None:
        np.savez(args.cache, images=examples.images, quads=examples.quads, starts=examples.starts,
                 counts=examples.counts, tables=args.tables, videos=args.videos)
    return examples


if __name__ == "__main__":
    raise SystemExit(main())
