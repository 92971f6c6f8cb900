"""The project's error types: one base class, one subclass per kind of failure."""


class VeriCiteError(Exception):
    """Base class of every error this package raises on purpose."""


class ConfigError(VeriCiteError):
    """models.toml, a prompt file or a setting is wrong (names the field, the rule and the value)."""


class ModelFileError(VeriCiteError):
    """A model file is missing, has the wrong size or sha256, or cannot be loaded (says how to fix it)."""


class InputError(VeriCiteError):
    """The user's input (documents file, question, index) cannot be used as given."""


class InferenceError(VeriCiteError):
    """A model call failed at run time."""


class Cancelled(VeriCiteError):
    """The question's work was stopped part-way by its caller (a deadline passed, the client left):
    raised by :func:`vericite.engine.cancel.check` wherever the work checks; its result is dropped."""
