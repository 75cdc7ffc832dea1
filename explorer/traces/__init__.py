"""Counterexample traces, the product a user reads: views, renderers, files and replay.

- ``views``: named, JSON-friendly views of states and their diffs (shared by every renderer);
- ``text``: traces and run summaries as text; ``itf``: ITF JSON trace files;
- ``html/``: a trace as one self-contained page to step through (``report`` builds its data);
- ``replay``: re-executing a trace against the model, divergence at the first differing step;
- ``regression``: a counterexample as a runnable pytest file; ``minimize``: shortening a trace by
  deleting steps while the same property still fails;
- ``display``: ``print(result)`` and a notebook's view of a result, installed on import here.

Imports the API modules, the registry and ``isrcheck.explorer.liveness`` (a lasso's replay);
never the search engines or the command line.
"""

from isrcheck.explorer.traces import display

display.install()
