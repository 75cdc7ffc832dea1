"""Builds the optional C hot path (model/native/_classic.c: successors and packing; _isr.c: WeakIsr and
StrongIsr); everything else is in pyproject.toml.

``optional=True``: without a working compiler the install still succeeds and isrcheck runs on the
Python code (slower); tests/test_native.py then fails, saying how to rebuild.
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("model.native._classic", ["model/native/_classic.c"], optional=True),
    Extension("model.native._isr", ["model/native/_isr.c"], optional=True),
])
