"""The 7.2 and 7.4 kernels written for Numba's CUDA target, run under its simulator
(NUMBA_ENABLE_CUDASIM=1) by `./workbook bench --cpu` beside Halo's CPU backend. Imported only
by run_sim.py, in the virtual environment that has Numba; nothing else in tools/ needs Numba."""
