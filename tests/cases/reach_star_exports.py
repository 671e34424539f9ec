"""A re-export by star imports only: which class a name is follows the imports, the last wins."""
from .reach_star_layers import *  # noqa: F403
from .reach_star_calm import *  # noqa: F403
