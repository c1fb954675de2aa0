import sys

from mnote_kr.cli import main

sys.exit(main())
