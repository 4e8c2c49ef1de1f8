"""CUDA-event timing shared by the bench scripts: the median of calls, each after an L2 flush."""
import torch


def median_event_ms(fn, flush, reps):
    """One warm-up call of fn, then the median ms of `reps` calls, each timed by CUDA events after flush(rep)."""
    fn()
    times = []
    for rep in range(reps):
        flush(rep)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[reps // 2]
