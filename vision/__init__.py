"""ducktable.vision"""
