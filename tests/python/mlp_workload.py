"""The python_binding test's workload, shared with tools/record_cpu_fixture.py (which records it with
a Kineto torch as tests/fixtures/torch/mlp_dataloader_cpu): a small CPU MLP fed by a DataLoader whose
samples take 1 ms each (num_workers=0), so the loop waits for its input; record_function blocks;
6 step() calls under schedule wait=1, warmup=1, active=3, repeat=1."""
import time

BATCH, SAMPLE_SECONDS = 32, 0.001  # 32 ms of sleep per batch
SCHEDULE = dict(wait=1, warmup=1, active=3, repeat=1)
STEP_CALLS = 6


def record(torch):
    """Runs the workload under torch.profiler (CPU activity) and returns the profile object."""
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    class SlowSamples(torch.utils.data.Dataset):
        def __len__(self):
            return STEP_CALLS * BATCH

        def __getitem__(self, i):
            time.sleep(SAMPLE_SECONDS)
            return torch.randn(64), i % 10

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = torch.utils.data.DataLoader(SlowSamples(), batch_size=BATCH)
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(**SCHEDULE)) as prof:
        for x, y in loader:
            with record_function("forward"):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            with record_function("backward"):
                opt.zero_grad()
                loss.backward()
            with record_function("optimizer"):
                opt.step()
            prof.step()
    return prof
