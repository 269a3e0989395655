"""Shipped model files (ONNX + manifest + model card). Data only."""
