"""The MIPs of a run: ``annc compile``'s model with its start (:mod:`.compiling`), the chain of
MIPs one training run solves, in order (:mod:`.chain`), how long its full MIP may go without
gaining anything (:mod:`.stalling`), and the files each MIP leaves (:mod:`.runfiles`).
"""
