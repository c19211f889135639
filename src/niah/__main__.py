"""``python -m niah``: the same command line as the ``niah`` script."""

from niah.cli import main

main()
