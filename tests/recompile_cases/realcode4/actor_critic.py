"""PyTorch examples (pytorch/examples at 77f55b9, reinforcement_learning/actor_critic.py;
BSD-3-Clause, see licenses/pytorch-examples.LICENSE): the actor-critic policy, `select_action`
(the policy called once per environment step on a 4-float state), `finish_episode` (returns,
advantages, one Adam step) and the episode loop, on a stand-in CartPole environment on CPU,
compiled as a user adds torch.compile to the script. Changed from upstream: argparse replaced by
a namespace, gymnasium's CartPole by the small class below, `select_action`/`finish_episode`
take the model and optimizer they read as globals, and `main` stops after a few episodes."""
import numpy as np
from itertools import count
from collections import namedtuple
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

# Cart Pole

args = SimpleNamespace(gamma=0.99, seed=543, log_interval=2)


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


SavedAction = namedtuple('SavedAction', ['log_prob', 'value'])


class Policy(nn.Module):
    """
    implements both actor and critic in one model
    """
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 128)

        # actor's layer
        self.action_head = nn.Linear(128, 2)

        # critic's layer
        self.value_head = nn.Linear(128, 1)

        # action & reward buffer
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        """
        forward of both actor and critic
        """
        x = F.relu(self.affine1(x))

        # actor: choses action to take from state s_t
        # by returning probability of each action
        action_prob = F.softmax(self.action_head(x), dim=-1)

        # critic: evaluates being in the state s_t
        state_values = self.value_head(x)

        # return values for both actor and critic as a tuple of 2 values:
        # 1. a list with the probability of each action over the action space
        # 2. the value from state s_t
        return action_prob, state_values


eps = np.finfo(np.float32).eps.item()


def select_action(model, state):
    state = torch.from_numpy(state).float()
    probs, state_value = model(state)

    # create a categorical distribution over the list of probabilities of actions
    m = Categorical(probs)

    # and sample an action using the distribution
    action = m.sample()

    # save to action buffer
    model.saved_actions.append(SavedAction(m.log_prob(action), state_value))

    # the action to take (left or right)
    return action.item()


def finish_episode(model, optimizer):
    """
    Training code. Calculates actor and critic loss and performs backprop.
    """
    R = 0
    saved_actions = model.saved_actions
    policy_losses = [] # list to save actor (policy) loss
    value_losses = [] # list to save critic (value) loss
    returns = [] # list to save the true values

    # calculate the true value using rewards returned from the environment
    for r in model.rewards[::-1]:
        # calculate the discounted value
        R = r + args.gamma * R
        returns.insert(0, R)

    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)

    for (log_prob, value), R in zip(saved_actions, returns):
        advantage = R - value.item()

        # calculate actor (policy) loss
        policy_losses.append(-log_prob * advantage)

        # calculate critic (value) loss using L1 smooth loss
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))

    # reset gradients
    optimizer.zero_grad()

    # sum up all the values of policy_losses and value_losses
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()

    # perform backprop
    loss.backward()
    optimizer.step()

    # reset rewards and action buffer
    del model.rewards[:]
    del model.saved_actions[:]


def main(model, optimizer, env, episodes):
    running_reward = 10

    # run infinitely many episodes
    for i_episode in count(1):

        # reset environment and episode reward
        state, _ = env.reset()
        ep_reward = 0

        # for each episode, only run 9999 steps so that we don't
        # infinite loop while learning
        for t in range(1, 10000):

            # select action from policy
            action = select_action(model, state)

            # take the action
            state, reward, terminated, truncated, _ = env.step(action)

            model.rewards.append(reward)
            ep_reward += reward
            if terminated or truncated:
                break

        # update cumulative reward
        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward

        # perform backprop
        finish_episode(model, optimizer)

        # log results
        if i_episode % args.log_interval == 0:
            print(f'Episode {i_episode}\tLast reward: {ep_reward:.2f}\tAverage reward: {running_reward:.2f}')

        # check if we have "solved" the cart pole problem
        if running_reward > env.spec.reward_threshold or i_episode >= episodes:
            break


def actor_critic_episodes():
    """`model = torch.compile(Policy())`: six episodes, the policy called at every step."""
    env = CartPole()
    env.reset(seed=args.seed)
    torch.manual_seed(args.seed)
    model = torch.compile(Policy())
    optimizer = optim.Adam(model.parameters(), lr=3e-2)
    main(model, optimizer, env, episodes=6)


def actor_critic_compiled_select_action():
    """`select_action` itself compiled (`torch.compile(select_action)`), the policy eager,
    four episodes."""
    global select_action
    env = CartPole()
    env.reset(seed=args.seed)
    torch.manual_seed(args.seed)
    model = Policy()
    optimizer = optim.Adam(model.parameters(), lr=3e-2)
    select_action = torch.compile(select_action)
    main(model, optimizer, env, episodes=4)


RECOMPILE_CASES = [
    ("actor_critic_episodes", actor_critic_episodes),
    ("actor_critic_compiled_select_action", actor_critic_compiled_select_action),
]
