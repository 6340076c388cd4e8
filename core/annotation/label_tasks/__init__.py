"""The label tasks, one module each; every module registers its task with
:func:`core.annotation.label_task.register` when imported, and the registry imports them all."""
