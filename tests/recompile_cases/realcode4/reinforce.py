"""PyTorch examples (pytorch/examples at 77f55b9, reinforcement_learning/reinforce.py;
BSD-3-Clause, see licenses/pytorch-examples.LICENSE): the REINFORCE policy (with dropout),
`select_action` (the policy called once per environment step on a batch of one state),
`finish_episode` and the episode loop, on a stand-in CartPole environment on CPU, compiled as a
user adds torch.compile to the script. Changed from upstream: argparse replaced by a namespace,
gymnasium's CartPole by the small class below, `select_action`/`finish_episode` take the policy
and optimizer they read as globals, and `main` stops after a few episodes."""
import numpy as np
from itertools import count
from collections import deque
from types import SimpleNamespace
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical


args = SimpleNamespace(gamma=0.99, seed=543, render=False, log_interval=2)


class CartPole:
    """A stand-in for gym.make('CartPole-v1') (gymnasium is not installed here): the classic
    cart-pole equations, reward 1 per step, terminated when the pole falls or the cart leaves
    the track, truncated at 500 steps."""
    spec = SimpleNamespace(reward_threshold=475.0)

    def __init__(self):
        self.rng = np.random.default_rng(0)
        self.state = np.zeros(4)
        self.steps = 0

    def reset(self, seed=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.state = self.rng.uniform(-0.05, 0.05, size=4)
        self.steps = 0
        return self.state.astype(np.float32), {}

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        cos, sin = np.cos(theta), np.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sin) / 1.1
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        self.state = np.array([x + 0.02 * x_dot, x_dot + 0.02 * x_acc,
                               theta + 0.02 * theta_dot, theta_dot + 0.02 * theta_acc])
        self.steps += 1
        terminated = bool(abs(self.state[0]) > 2.4 or abs(self.state[2]) > 0.2095)
        truncated = self.steps >= 500
        return self.state.astype(np.float32), 1.0, terminated, truncated, {}


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 128)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(128, 2)

        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


eps = np.finfo(np.float32).eps.item()


def select_action(policy, state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode(policy, optimizer):
    R = 0
    policy_loss = []
    returns = deque()
    for r in policy.rewards[::-1]:
        R = r + args.gamma * R
        returns.appendleft(R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]


def main(policy, optimizer, env, episodes):
    running_reward = 10
    for i_episode in count(1):
        state, _ = env.reset()
        ep_reward = 0
        for t in range(1, 10000):  # Don't infinite loop while learning
            action = select_action(policy, state)
            state, reward, terminated, truncated, _ = env.step(action)
            policy.rewards.append(reward)
            ep_reward += reward
            if terminated or truncated:
                break

        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
        finish_episode(policy, optimizer)
        if i_episode % args.log_interval == 0:
            print(f'Episode {i_episode}\tLast reward: {ep_reward:.2f}\tAverage reward: {running_reward:.2f}')
        if running_reward > env.spec.reward_threshold or i_episode >= episodes:
            break


def reinforce_episodes():
    """`policy = torch.compile(Policy())`: six episodes, the policy called at every step."""
    env = CartPole()
    env.reset(seed=args.seed)
    torch.manual_seed(args.seed)
    policy = torch.compile(Policy())
    optimizer = optim.Adam(policy.parameters(), lr=1e-2)
    main(policy, optimizer, env, episodes=6)


def reinforce_greedy_evaluation():
    """Four training episodes, then the trained policy run greedily in `policy.eval()` under
    `torch.no_grad()` for one episode (argmax of the compiled policy's probabilities)."""
    env = CartPole()
    env.reset(seed=args.seed)
    torch.manual_seed(args.seed)
    policy = torch.compile(Policy())
    optimizer = optim.Adam(policy.parameters(), lr=1e-2)
    main(policy, optimizer, env, episodes=4)
    policy.eval()
    state, _ = env.reset()
    with torch.no_grad():
        for t in range(1, 10000):
            probs = policy(torch.from_numpy(state).float().unsqueeze(0))
            state, reward, terminated, truncated, _ = env.step(probs.argmax(dim=1).item())
            if terminated or truncated:
                break


RECOMPILE_CASES = [
    ("reinforce_episodes", reinforce_episodes),
    ("reinforce_greedy_evaluation", reinforce_greedy_evaluation),
]
