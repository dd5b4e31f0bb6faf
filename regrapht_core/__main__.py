"""``python -m regrapht_core``: the ``regrapht`` command where no script is installed."""

from regrapht_core.cli import main

main(prog_name="regrapht")
