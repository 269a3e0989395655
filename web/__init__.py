"""ducktable.web"""
