"""Front ends: the flake8 plugin and the command line, which show what the engine found."""
