import sys

from hooks.postprocess.built_site import main

sys.exit(main())
