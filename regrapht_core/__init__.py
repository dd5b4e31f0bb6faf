"""ReGraphT core: the ReGraph, tasks, verification, models and search. Knows nothing of editors."""

import logging

logging.getLogger(__name__).addHandler(logging.NullHandler())

__version__ = "0.1.0"
