"""What pyproject.toml cannot say: the repository's folders mapped onto one import namespace, and
the optional C hot path.

``model/``, ``properties/`` and ``explorer/`` install as ``isrcheck.model``, ``isrcheck.properties``
and ``isrcheck.explorer``; ``isrcheck/`` holds the namespace's own ``__init__`` (the public API).
Nothing is installed at the top of site-packages but ``isrcheck``. Every package below those
folders is discovered (a folder with an ``__init__.py``), never listed, so a new package cannot be
left out of the wheel.

The C extensions are ``optional=True``: without a working compiler the install still succeeds and
isrcheck runs on the Python code (slower); tests/model/test_native.py then fails, saying how to rebuild.
"""

from setuptools import Extension, find_packages, setup

NAMESPACE = "isrcheck"
FOLDERS = {"model": f"{NAMESPACE}.model", "properties": f"{NAMESPACE}.properties", "explorer": f"{NAMESPACE}.explorer"}


def discovered() -> tuple[list[str], dict[str, str]]:
    """(packages, package_dir): the namespace, each folder's package and every package below it."""
    packages, package_dir = [NAMESPACE], {NAMESPACE: NAMESPACE}
    for folder, name in FOLDERS.items():
        package_dir[name] = folder
        packages += [name, *(f"{name}.{sub}" for sub in find_packages(folder))]
    return packages, package_dir


packages, package_dir = discovered()
setup(
    packages=packages,
    package_dir=package_dir,
    ext_modules=[
        Extension(f"{NAMESPACE}.model.native._classic", ["model/native/_classic.c"], optional=True),
        Extension(f"{NAMESPACE}.model.native._isr", ["model/native/_isr.c"], optional=True),
        Extension(f"{NAMESPACE}.explorer.search.parallel._route", ["explorer/search/parallel/_route.c"],
                  optional=True),
        Extension(f"{NAMESPACE}.explorer.search.spark._blocks", ["explorer/search/spark/_blocks.c"], optional=True),
    ],
)
