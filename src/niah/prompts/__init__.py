"""Prompts: the types a prompt is made of (:mod:`niah.prompts.types`, below the family protocol) and the
rendering and capability fit shared by every family (:mod:`niah.prompts.render`, which asks the registry for a
family's renderer). Import from the submodule: this package imports nothing, so the protocol can use the types
without pulling the registry in."""
