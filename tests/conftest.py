"""The suite's hypothesis profile: no deadline for any example.  A deadline measures the
machine, not the code: on a loaded machine (CI's two cores, another test run beside this one)
an example that takes 200 ms is a flaky failure.  Every `@given` test gets this unless its own
settings say otherwise; tests/test_properties.py and others also say ``deadline=None``."""

from hypothesis import settings

settings.register_profile("shanghai", deadline=None)
settings.load_profile("shanghai")
