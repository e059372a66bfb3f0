"""The parts of scripts/bench.py: workloads, the guest run, host measurements, report, charts."""
