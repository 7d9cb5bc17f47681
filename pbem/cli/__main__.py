"""python -m pbem.cli"""

from pbem.cli import run

run()
