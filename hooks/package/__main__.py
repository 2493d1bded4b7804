import sys

from hooks.package.built_site import main

sys.exit(main())
