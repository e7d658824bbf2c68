import sys

from pi_tui.cli import main

sys.exit(main())
