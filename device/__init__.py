"""ducktable.device"""
