"""The wire: the Tensorlake shapes as the SDKs send and read them.

The only place that knows the wire's field names: requests are read into the use cases' typed
requests, and the core's records and results are turned into response models here (``documents``
for parse jobs and results, ``sandboxes`` for the sandbox API, ``v1`` for the legacy camelCase API,
``schemas`` for the shapes the OpenAPI document declares).
"""
