"""Train the card classifier on rendered cards and ship it: ``python -m ducktable.training.classifier``.

Why it is built this way:

* **Only synthetic data.** Every training crop is a render pushed through
  :mod:`ducktable.vision.augment` (crop residue, 180° turns, light, blur, noise, JPEG), drawn
  fresh each step from one seed, so nothing is cached in the repository. Half of our faces come
  from the reference edition, half from invented printings (``render.render_variant``: other
  index fonts, stroke weights, inks, paper, margins, index corner) so the embedding learns what
  a card says rather than one typeface — what makes an unseen printing enrol well. Neither the
  alternate edition nor its serif fonts are ever drawn.
* **An embedding, not only a classifier.** The head is a cosine classifier (CosFace margin), so
  each class weight is a prototype in the same space as the embedding. Besides our ~140 classes
  the network learns several hundred *invented* cards (``augment.foreign_card``), which makes the
  embedding separate card designs it never saw — that is what lets a real deck be enrolled from
  two photos per card, and what pushes cards of unknown decks away from every prototype.
* **Rejection is calibrated, not guessed.** After training, thresholds are set on held-out
  invented decks (never the alternate edition or the 52-card deck, which are test sets).

Torch is imported only inside the functions that need it (the ``train`` extra); the data
generator works without it and is what CI tests.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from ducktable.rules.decks import BACK, UNKNOWN
from ducktable.sim import render
from ducktable.vision import augment
from ducktable.vision.classify import MODEL_FILE, file_sha256, manifest_path, preprocess
from ducktable.vision.model_files import training_command

INPUT_W, INPUT_H = 64, 96
MEAN = (0.5, 0.5, 0.5)
STD = (0.25, 0.25, 0.25)
EMBEDDING_DIM = 64
BASE_W, BASE_H = 120, 180  # render size the crops are cut from

TRAIN_FAMILIES = range(0, 96)  # invented decks learned as extra identities
MEMBERS = 12
PRINTINGS = range(0, 24)  # invented printings of our own cards (render.render_variant)
CALIBRATION_FAMILIES = range(1000, 1040)  # held out: used only to set the thresholds
CALIBRATION_VIEWS = 10  # reference crops per class for the class threshold (0.3% = 4 crops)
CALIBRATION_QUERIES = 3  # crops per invented card for the prototype threshold (1440 in all)


def class_labels() -> list[str]:
    """The shipped model's classes: every face of the five games, then ``back``, ``unknown``."""
    labels = [f"{game}/{label}" for game in render.GAMES for label in render.card_labels(game)]
    return [*labels, BACK, UNKNOWN]  # unknown stays last (the export relies on it)


def face_image(label: str, edition: str = "reference", *, width: int = BASE_W,
               height: int = BASE_H) -> np.ndarray:
    """The render of a game-qualified label (``back`` is drawn by :func:`back_images`)."""
    game, face = label.split("/", 1)
    return render.render_card(game, face, edition=edition, width=width, height=height)


def variant_image(label: str, printing: int) -> np.ndarray:
    """A game-qualified label as invented printing ``printing`` draws it (training only)."""
    game, face = label.split("/", 1)
    return render.render_variant(game, face, printing, width=BASE_W, height=BASE_H)


def back_images(edition: str = "reference") -> list[np.ndarray]:
    return [render.render_back(g, edition=edition, width=BASE_W, height=BASE_H)
            for g in render.GAMES]


# ---- the training stream (numpy + opencv only) -----------------------------------------------
@dataclass
class TrainingData:
    """An endless, seeded stream of (crop, class index) batches.

    Class indices ``0 .. len(labels)-1`` are the shipped classes; higher ones are invented cards.
    """

    seed: int = 0
    families: Sequence[int] = TRAIN_FAMILIES
    members: int = MEMBERS
    unknown_share: float = 0.08
    foreign_share: float = 0.40
    printings: Sequence[int] = PRINTINGS
    printing_share: float = 0.5  # of our faces, drawn from an invented printing
    camera_share: float = 0.3  # of our faces, cut as from a table camera's picture
    hard_faces: str = "duck/yellow-"  # faces drawn more often: a coloured index hard to read
    hard_weight: float = 3.0

    def __post_init__(self) -> None:
        self.labels = class_labels()
        self.faces = [face_image(lab) for lab in self.labels if "/" in lab]
        self.variants = [[variant_image(lab, v) for v in self.printings]
                         for lab in self.labels if "/" in lab]
        self.backs = back_images()
        self.foreign = [augment.foreign_card(f, m, width=BASE_W, height=BASE_H)
                        for f in self.families for m in range(self.members)]
        self.n_classes = len(self.labels) + len(self.foreign)
        self.back_index = self.labels.index(BACK)
        self.unknown_index = self.labels.index(UNKNOWN)
        weights = np.array([self.hard_weight if self.hard_faces and lab.startswith(self.hard_faces)
                            else 1.0 for lab in self.labels if "/" in lab] + [1.0])  # + back
        self.face_odds = weights / weights.sum()

    def sample(self, rng: np.random.Generator) -> tuple[np.ndarray, int]:
        r = rng.random()
        size = (INPUT_W, INPUT_H)
        if r < self.unknown_share:
            crop = augment.clutter(rng, self.faces + self.foreign, size=size)
            return crop, self.unknown_index
        if r < self.unknown_share + self.foreign_share:
            k = int(rng.integers(len(self.foreign)))
            return augment.augment_card(self.foreign[k], rng, size=size), len(self.labels) + k
        k = int(rng.choice(len(self.face_odds), p=self.face_odds))
        if k == len(self.faces):
            back = self.backs[int(rng.integers(len(self.backs)))]
            return self._photographed(back, rng), self.back_index
        face = self.faces[k]
        if self.printings and rng.random() < self.printing_share:
            face = self.variants[k][int(rng.integers(len(self.printings)))]
        return self._photographed(face, rng), k

    def _photographed(self, card: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One of our cards as the classifier meets it: mostly a detector's crop of a photo,
        sometimes as the table reader cuts it from a table camera's small, twice-compressed
        picture."""
        size = (INPUT_W, INPUT_H)
        if rng.random() < self.camera_share:
            return augment.table_camera_crop(card, rng, size=size)
        return augment.augment_card(card, rng, size=size)

    def batches(self, batch_size: int, worker: int = 0) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        rng = np.random.default_rng([self.seed, worker])
        while True:
            crops, targets = zip(*(self.sample(rng) for _ in range(batch_size)), strict=True)
            x = preprocess(crops, INPUT_W, INPUT_H, MEAN, STD)
            yield x, np.array(targets, np.int64)


# ---- the network (torch, imported lazily) ----------------------------------------------------
def build_network(n_classes: int) -> Any:
    import torch
    from torch import nn

    def block(i: int, o: int, stride: int) -> nn.Module:
        return nn.Sequential(nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o),
                             nn.ReLU(inplace=True))

    class CardNet(nn.Module):
        """64x96 crop -> 64-d unit embedding; cosine similarity to one prototype per class."""

        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                block(3, 16, 2), block(16, 32, 2), block(32, 32, 1), block(32, 64, 2),
                block(64, 64, 1), block(64, 128, 2))
            self.project = nn.Sequential(nn.Dropout(0.1), nn.Linear(128 * 6 * 4, EMBEDDING_DIM))
            self.prototypes = nn.Parameter(torch.randn(n_classes, EMBEDDING_DIM) * 0.1)

        def embed(self, x: torch.Tensor) -> torch.Tensor:
            return nn.functional.normalize(self.project(self.features(x).flatten(1)), dim=1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.embed(x) @ nn.functional.normalize(self.prototypes, dim=1).T

    return CardNet()


class _Exported:
    """Wraps the trained net for export: outputs (embedding, scores over shipped classes).

    The invented cards' prototypes travel along as *decoys* for ``unknown`` (the last class):
    its score is the best of its own prototype and every decoy, so a card of a deck nobody
    enrolled that resembles some invented card is called unknown rather than a near miss.
    """

    @staticmethod
    def build(net: Any, n_shipped: int) -> Any:
        import torch
        from torch import nn

        class Export(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.net = net
                protos = nn.functional.normalize(net.prototypes.detach(), dim=1)
                self.register_buffer("known", protos[:n_shipped - 1].clone())
                self.register_buffer("unknown", torch.cat(
                    [protos[n_shipped - 1:n_shipped], protos[n_shipped:]]).clone())

            def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
                e = self.net.embed(x)
                unknown = (e @ self.unknown.T).max(dim=1, keepdim=True).values
                return e, torch.cat([e @ self.known.T, unknown], dim=1)

        return Export().eval()


@dataclass
class TrainConfig:
    steps: int = 4800
    batch: int = 128
    lr: float = 3e-3
    scale: float = 30.0
    margin: float = 0.2
    seed: int = 0
    threads: int = 2
    init: Path | None = None  # a shipped model to start from (fine-tuning) instead of random


def train(config: TrainConfig, data: TrainingData, progress: bool = True) -> Any:
    """Run the optimisation; returns the trained network (in eval mode)."""

    import torch
    from tqdm import tqdm

    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    net = build_network(data.n_classes)
    if config.init is not None:
        first, _ = next(data.batches(config.batch, worker=1))
        load_exported(net, config.init, torch.from_numpy(first))
    opt = torch.optim.AdamW(net.parameters(), lr=config.lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=config.lr, total_steps=config.steps,
                                                pct_start=0.1)
    loader = torch.utils.data.DataLoader(_BatchStream(data, config.batch), batch_size=None,
                                         num_workers=1, prefetch_factor=4)
    batches = iter(loader)
    net.train()
    bar = tqdm(range(config.steps), desc="training", disable=not progress, unit="step",
               mininterval=5.0)
    running = None
    x = y = torch.zeros(0)
    for step in bar:
        # each rendered batch is used twice, the second time turned by 180 degrees: rendering
        # costs more than a training step on a CPU
        if step % 2 == 0:
            x, y = next(batches)
        else:
            x = torch.flip(x, dims=(2, 3))
        cos = net(x)
        logits = config.scale * (cos - config.margin * nn_one_hot(y, cos.shape[1]))
        loss = torch.nn.functional.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        running = loss.item() if running is None else 0.98 * running + 0.02 * loss.item()
        bar.set_postfix(loss=f"{running:.3f}", refresh=False)
    net.eval()
    return net


def load_exported(net: Any, model_path: Path, batch: Any) -> None:
    """Set ``net`` to the exported model ``model_path`` (same network, same classes).

    The export folds each BatchNorm into its convolution; each is unfolded again with the
    statistics of ``batch`` (a training batch), so that in training mode the network computes
    what the shipped model computes on such crops and fine-tuning starts where it left off.
    """
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(str(model_path)).graph
    weights = {t.name: np.array(numpy_helper.to_array(t)) for t in graph.initializer}
    convs = [(weights[n.input[1]], weights[n.input[2]]) for n in graph.node if n.op_type == "Conv"]
    mats = sorted((weights[n.input[1]] for n in graph.node if n.op_type == "MatMul"
                   and n.input[1] in weights), key=lambda m: m.shape[1])
    known, rest = mats  # our classes but unknown; unknown and the invented cards
    if len(convs) != 6 or known.shape[1] + rest.shape[1] != net.prototypes.shape[0]:
        raise ValueError(f"{model_path} is not a model of this network and these classes")
    with torch.no_grad():
        net.project[1].weight.copy_(torch.from_numpy(weights["net.project.1.weight"]))
        net.project[1].bias.copy_(torch.from_numpy(weights["net.project.1.bias"]))
        net.prototypes.copy_(torch.from_numpy(np.concatenate([known, rest], axis=1).T.copy()))
        x = batch
        for block, (w, b) in zip(net.features, convs, strict=True):
            conv, norm = block[0], block[1]
            conv.weight.copy_(torch.from_numpy(w))
            y = conv(x)
            mean, var = y.mean(dim=(0, 2, 3)), y.var(dim=(0, 2, 3), unbiased=False)
            bias = torch.from_numpy(b)
            norm.weight.copy_(torch.sqrt(var + norm.eps))
            norm.bias.copy_(mean + bias)
            norm.running_mean.copy_(mean)
            norm.running_var.copy_(var)
            x = torch.relu(y + bias[None, :, None, None])


class _BatchStream:
    """Adapts :class:`TrainingData` to torch's IterableDataset (made lazily, torch optional)."""

    def __new__(cls, data: TrainingData, batch: int) -> Any:
        import torch

        class Stream(torch.utils.data.IterableDataset):
            def __iter__(self) -> Iterator[tuple[Any, Any]]:
                for x, y in data.batches(batch):
                    yield torch.from_numpy(x), torch.from_numpy(y)

        return Stream()


def nn_one_hot(y: Any, n: int) -> Any:
    import torch

    return torch.nn.functional.one_hot(y, n).to(torch.float32)


def export_onnx(net: Any, labels: Sequence[str], path: Path) -> None:
    """Write the ONNX graph (dynamic batch) with the labels in its metadata."""
    import onnx
    import torch

    model = _Exported.build(net, len(labels))
    dummy = torch.zeros(1, 3, INPUT_H, INPUT_W)
    torch.onnx.export(model, (dummy,), str(path), input_names=["crops"],
                      output_names=["embedding", "scores"],
                      dynamic_axes={"crops": {0: "n"}, "embedding": {0: "n"}, "scores": {0: "n"}},
                      opset_version=17, dynamo=False)
    proto = onnx.load(str(path))
    meta = {"labels": json.dumps(list(labels)),
            "preprocessing": json.dumps(_input_spec()),
            "producer": "ducktable.training.classifier"}
    for key, value in meta.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, value
    onnx.save(proto, str(path))


def _input_spec() -> dict[str, Any]:
    return {"name": "crops", "width": INPUT_W, "height": INPUT_H, "channel_order": "BGR",
            "layout": "NCHW", "scale": "1/255", "mean": list(MEAN), "std": list(STD),
            "resize": "area when shrinking, else linear"}


def write_manifest(model_path: Path, labels: Sequence[str], thresholds: dict[str, float],
                   scale: float, training: dict[str, Any]) -> dict[str, Any]:
    manifest = {
        "format": 1,
        "model_file": model_path.name,
        "sha256": file_sha256(model_path),
        "input": _input_spec(),
        "outputs": {"embedding": "embedding", "scores": "scores"},
        "embedding_dim": EMBEDDING_DIM,
        "labels": list(labels),
        "scale": scale,
        "thresholds": thresholds,
        "training": training,
    }
    manifest_path(model_path).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


# ---- threshold calibration (onnxruntime only) ------------------------------------------------
def calibrate(model_path: Path, seed: int = 123, class_threshold: float | None = None
              ) -> dict[str, float]:
    """Pick the two rejection thresholds by running the classifier on held-out invented decks.

    * class threshold: the highest that still keeps (all but 0.3% of) the reference crops the
      model reads right — everything less similar than that is called ``unknown``;
    * prototype threshold: as many enrolled cards right as possible while at least 95% of
      cards from decks not enrolled stay ``unknown``, measured by enrolling half of the held-out
      invented decks from two views per card and querying all of them.

    ``class_threshold`` pins the first instead (a model whose reference crops are read less
    surely, as one trained on a table camera's blurred crops, is otherwise given a lower one).
    """
    from ducktable.vision.classify import CardClassifier
    from ducktable.vision.enroll import deck_prototypes

    clf = CardClassifier.load(model_path)
    rng = np.random.default_rng(seed)
    labels = list(clf.manifest.labels)
    faces = [face_image(lab) for lab in labels if "/" in lab]
    size = (INPUT_W * 3 // 2, INPUT_H * 3 // 2)
    ref_crops = [augment.augment_card(f, rng, size=size) for f in faces
                 for _ in range(CALIBRATION_VIEWS)]
    ref_truth = [labels[k] for k in range(len(faces)) for _ in range(CALIBRATION_VIEWS)]
    foreign = [augment.foreign_card(f, m, width=BASE_W, height=BASE_H)
               for f in CALIBRATION_FAMILIES for m in range(MEMBERS)]
    grid = np.round(np.arange(0.2, 0.95, 0.01), 2)

    def with_thresholds(c: CardClassifier, cls: float, proto: float) -> CardClassifier:
        manifest = replace(c.manifest, class_threshold=float(cls), prototype_threshold=float(proto))
        return CardClassifier(c.session, manifest, c.prototypes)

    base = _base_error(clf, ref_crops, ref_truth)
    class_t = float(grid[0]) if class_threshold is None else class_threshold
    for t in grid if class_threshold is None else []:
        trial = with_thresholds(clf, t, 0.99)
        lost = np.mean([r.label != w for r, w in zip(trial.classify(ref_crops), ref_truth,
                                                        strict=True)])
        if lost > base + 0.003:
            break
        class_t = float(t)

    enrolled = [i for i in range(len(CALIBRATION_FAMILIES)) if i % 2 == 0]
    shots = {f"cal{i}/m{m}": [augment.augment_card(foreign[i * MEMBERS + m], rng, size=size,
                                                   strength=0.6) for _ in range(2)]
             for i in enrolled for m in range(MEMBERS)}
    protos = deck_prototypes(clf, shots, rng)
    queries = [augment.augment_card(c, rng, size=size) for c in foreign
               for _ in range(CALIBRATION_QUERIES)]
    truth = [f"cal{k // MEMBERS}/m{k % MEMBERS}" if (k // MEMBERS) in enrolled else UNKNOWN
             for k in range(len(foreign)) for _ in range(CALIBRATION_QUERIES)]
    best_t, best_score = 0.5, -1.0
    for t in grid:
        trial = with_thresholds(clf, class_t, t).with_prototypes(protos)
        got = [r.label for r in trial.classify(queries)]
        right = np.mean([g == w for g, w in zip(got, truth, strict=True) if w != UNKNOWN])
        rejected = np.mean([g == UNKNOWN for g, w in zip(got, truth, strict=True)
                            if w == UNKNOWN])
        score = right if rejected >= 0.95 else rejected - 1
        if score > best_score:
            best_t, best_score = float(t), float(score)
    return {"class": round(class_t, 2), "prototype": round(best_t, 2)}


def _base_error(clf: Any, crops: list[np.ndarray], truth: list[str]) -> float:
    """Error on reference crops with no rejection at all (what a threshold cannot fix)."""
    manifest = replace(clf.manifest, class_threshold=-1.0)
    trial = type(clf)(clf.session, manifest, clf.prototypes)
    return float(np.mean([r.label != t for r, t in zip(trial.classify(crops), truth,
                                                         strict=True)]))


# ---- command line ----------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ducktable.training.classifier",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent
                        / "models", help="folder for the model, manifest, card and plot")
    parser.add_argument("--steps", type=int, default=TrainConfig.steps)
    parser.add_argument("--batch", type=int, default=TrainConfig.batch)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=TrainConfig.lr, help="the highest learning rate")
    parser.add_argument("--init", type=Path, metavar="MODEL",
                        help="start from this exported model (fine-tuning) instead of random weights")
    parser.add_argument("--threads", type=int, default=2,
                        help="torch threads (1 is faster when other jobs share the CPU)")
    parser.add_argument("--class-threshold", type=float, metavar="T",
                        help="use T as the model classes' threshold instead of calibrating it")
    parser.add_argument("--no-evaluate", action="store_true",
                        help="skip the benchmark and model card (quick experiments)")
    parser.add_argument("--recalibrate", type=Path, metavar="MODEL",
                        help="only re-pick the thresholds of an existing model (no torch needed)")
    args = parser.parse_args(argv)
    if args.recalibrate is not None:
        return _recalibrate(args.recalibrate, args.class_threshold)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("training needs PyTorch: pip install -e '.[train]' (or run `make model`)",
              file=sys.stderr)
        return 2
    config = TrainConfig(steps=args.steps, batch=args.batch, seed=args.seed,
                         threads=args.threads, lr=args.lr, init=args.init)
    start = time.perf_counter()
    print("rendering the training cards ...", flush=True)
    data = TrainingData(seed=args.seed)
    net = train(config, data)
    train_seconds = time.perf_counter() - start
    args.out.mkdir(parents=True, exist_ok=True)
    model_path = args.out / MODEL_FILE
    labels = data.labels
    with tempfile.TemporaryDirectory() as tmp:
        draft = Path(tmp) / MODEL_FILE
        export_onnx(net, labels, draft)
        write_manifest(draft, labels, {"class": 0.5, "prototype": 0.5}, config.scale, {})
        print("calibrating the rejection thresholds ...", flush=True)
        thresholds = calibrate(draft, class_threshold=args.class_threshold)
        model_path.write_bytes(draft.read_bytes())
    started_from = (f" --lr {config.lr:g} --init {config.init}" if config.init is not None
                    else "")
    if args.class_threshold is not None:
        started_from += f" --class-threshold {args.class_threshold:g}"
    training = {
        "command": f"python -m ducktable.training.classifier --steps {config.steps} "
                   f"--seed {config.seed} --threads {config.threads}{started_from}",
        "init": None if config.init is None else file_sha256(config.init),
        "init_command": None if config.init is None else training_command(config.init),
        "lr": config.lr, "camera_share": data.camera_share,
        "hard_faces": f"{data.hard_faces}* x{data.hard_weight:g}",
        "steps": config.steps, "batch": config.batch, "seed": config.seed,
        "samples": config.steps * config.batch, "seconds": round(train_seconds, 1),
        "threads": config.threads, "loss": f"CosFace s={config.scale} m={config.margin}",
        "classes": len(labels), "invented_identities": data.n_classes - len(labels),
        "invented_printings": len(data.printings), "printing_share": data.printing_share,
        "torch": torch.__version__,
    }
    write_manifest(model_path, labels, thresholds, config.scale, training)
    print(f"wrote {model_path} ({model_path.stat().st_size / 1e6:.2f} MB) in "
          f"{train_seconds / 60:.1f} min; thresholds {thresholds}")
    if not args.no_evaluate:
        from ducktable.bench import evaluate

        evaluate.main(["--model", str(model_path), "--write-card"])
    return 0


def _recalibrate(model_path: Path, class_threshold: float | None = None) -> int:
    path = manifest_path(model_path)
    manifest = json.loads(path.read_text(encoding="utf-8"))
    thresholds = calibrate(model_path, class_threshold=class_threshold)
    manifest["thresholds"] = thresholds
    path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(f"thresholds of {model_path}: {thresholds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
