"""Cross-check properties, one module per topic; importing this package registers them."""

from . import foundations, metric  # noqa: F401
