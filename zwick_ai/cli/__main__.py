import sys

from zwick_ai.cli import main

sys.exit(main())
