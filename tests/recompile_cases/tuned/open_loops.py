"""Loops a test on data ends (pytorch/examples reinforcement learning's `for t in range(1, 10000):
... if terminated or truncated: break` inside `for i_episode in count(1): ... if running_reward >
threshold: break`), a stand-in environment deciding when an episode ends. The number of passes is
not known, only that there is one: a policy called on a (1, 4) state the driver makes at every
step compiles once whatever the count, then a greedy episode under no_grad once more (the grad
mode). Near misses, whose compiles depend on how long the loop runs: the step number passed to
the compiled module (the second call recompiles), and a compiled function appending to a list the
module holds (its length is guarded at each call; the list cleared each episode)."""
from itertools import count

import numpy as np
import torch
import torch.nn as nn


class Environment:
    def __init__(self):
        self.rng = np.random.default_rng(0)
        self.state = np.zeros(4)
        self.steps = 0

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, size=4)
        self.steps = 0
        return self.state.astype(np.float32)

    def step(self, action):
        self.state = self.state + self.rng.normal(0.0, 0.05, size=4) + 0.01 * action
        self.steps += 1
        done = bool(abs(self.state[2]) > 0.2 or self.steps >= 30)
        return 1.0, done


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine = nn.Linear(4, 2)
        self.saved = []

    def forward(self, x):
        return torch.softmax(self.affine(x), dim=1)


class StepPolicy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine = nn.Linear(4, 2)

    def forward(self, x, step):
        return torch.softmax(self.affine(x) * step, dim=1)


@torch.compile
def select(policy, state):
    probs = policy(state)
    policy.saved.append(probs)
    return probs


def episodes_policy():
    env = Environment()
    policy = torch.compile(Policy())
    running_reward = 10
    for i_episode in count(1):
        env.reset()
        ep_reward = 0
        for t in range(1, 10000):
            probs = policy(torch.rand(1, 4))
            reward, done = env.step(probs.argmax(dim=1).item())
            ep_reward += reward
            if done:
                break
        running_reward = 0.05 * ep_reward + 0.95 * running_reward
        if running_reward > 12 or i_episode >= 3:
            break


def episodes_then_greedy():
    env = Environment()
    policy = torch.compile(Policy())
    for i_episode in range(3):
        env.reset()
        for t in range(1, 10000):
            probs = policy(torch.rand(1, 4))
            reward, done = env.step(probs.argmax(dim=1).item())
            if done:
                break
    env.reset()
    with torch.no_grad():
        for t in range(1, 10000):
            probs = policy(torch.rand(1, 4))
            reward, done = env.step(probs.argmax(dim=1).item())
            if done:
                break


def step_number_passed():
    env = Environment()
    policy = torch.compile(StepPolicy())
    env.reset()
    for t in range(1, 10000):
        probs = policy(torch.rand(1, 4), t)
        reward, done = env.step(probs.argmax(dim=1).item())
        if done:
            break


def list_grows_per_call():
    env = Environment()
    policy = Policy()
    for i_episode in range(2):
        env.reset()
        for t in range(1, 10000):
            probs = select(policy, torch.rand(1, 4))
            reward, done = env.step(probs.argmax(dim=1).item())
            if done:
                break
        del policy.saved[:]


RECOMPILE_CASES = [
    ("episodes_policy", episodes_policy),
    ("episodes_then_greedy", episodes_then_greedy),
    ("step_number_passed", step_number_passed),
    ("list_grows_per_call", list_grows_per_call),
]
