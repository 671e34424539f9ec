"""PyTorch tutorials (pytorch/tutorials at 00acd8d, intermediate_source/
reinforcement_q_learning.py, by Adam Paszke; BSD-3-Clause, see
licenses/pytorch-tutorials.LICENSE): the pixel DQN on CartPole, with its replay memory,
epsilon-greedy `select_action` (the policy net on one screen difference under no_grad),
`optimize_model` (a sampled batch through the policy net, the non-final next states through the
eval-mode target net) and the episode loop updating the target net every TARGET_UPDATE
episodes; compiled as a user adds torch.compile to the script. Changed from upstream: gym's
CartPole-v0 replaced by `CartPole`, a stand-in with gym's cart-pole dynamics and thresholds
(seeded reset, no time limit, as `.unwrapped`) whose `render` draws the cart and the pole into
a 100x150 RGB array instead of a 400x600 window; torchvision's PIL resize to height 40 replaced
by `F.interpolate` (bicubic, height 40; the stand-in's 40-row crop keeps its size, giving the
tutorial's 3x40x90 screens); matplotlib's plot of the durations replaced by a print; 50
episodes -> 12 (BATCH_SIZE kept at 128); the module-level script written as the drivers below
(they set the script's globals, which select_action and optimize_model read)."""
import math
import random
from collections import namedtuple, deque
from itertools import count

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
import torch.nn.functional as F


class CartPole:
    """Stand-in for gym.make('CartPole-v0').unwrapped: the same dynamics, a small render."""

    gravity = 9.8
    masscart = 1.0
    masspole = 0.1
    length = 0.5  # half the pole's length
    force_mag = 10.0
    tau = 0.02
    theta_threshold_radians = 12 * 2 * math.pi / 360
    x_threshold = 2.4

    class action_space:
        n = 2

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.state = None

    def reset(self):
        self.state = self.rng.uniform(low=-0.05, high=0.05, size=(4,))
        return np.array(self.state)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        total_mass = self.masspole + self.masscart
        polemass_length = self.masspole * self.length
        costheta, sintheta = math.cos(theta), math.sin(theta)
        temp = (force + polemass_length * theta_dot ** 2 * sintheta) / total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * costheta ** 2 / total_mass))
        xacc = temp - polemass_length * thetaacc * costheta / total_mass
        x = x + self.tau * x_dot
        x_dot = x_dot + self.tau * xacc
        theta = theta + self.tau * theta_dot
        theta_dot = theta_dot + self.tau * thetaacc
        self.state = (x, x_dot, theta, theta_dot)
        done = bool(x < -self.x_threshold or x > self.x_threshold
                    or theta < -self.theta_threshold_radians
                    or theta > self.theta_threshold_radians)
        return np.array(self.state), 1.0, done, {}

    def render(self, mode='rgb_array'):
        height, width = 100, 150
        screen = np.full((height, width, 3), 255, dtype=np.uint8)
        scale = width / (self.x_threshold * 2)
        cart_x = int(self.state[0] * scale + width / 2.0)
        cart_y = 65
        screen[cart_y - 3:cart_y + 3, max(cart_x - 8, 0):max(min(cart_x + 8, width), 0)] = 0
        for step in range(25):
            px = int(cart_x + step * math.sin(self.state[2]))
            py = int(cart_y - step * math.cos(self.state[2]))
            if 0 <= px < width and 0 <= py < height:
                screen[py, px] = (204, 153, 102)
        return screen


device = torch.device("cpu")


Transition = namedtuple('Transition',
                        ('state', 'action', 'next_state', 'reward'))


class ReplayMemory(object):

    def __init__(self, capacity):
        self.memory = deque([],maxlen=capacity)

    def push(self, *args):
        """Save a transition"""
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        return random.sample(self.memory, batch_size)

    def __len__(self):
        return len(self.memory)


class DQN(nn.Module):

    def __init__(self, h, w, outputs):
        super(DQN, self).__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=5, stride=2)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=5, stride=2)
        self.bn2 = nn.BatchNorm2d(32)
        self.conv3 = nn.Conv2d(32, 32, kernel_size=5, stride=2)
        self.bn3 = nn.BatchNorm2d(32)

        # Number of Linear input connections depends on output of conv2d layers
        # and therefore the input image size, so compute it.
        def conv2d_size_out(size, kernel_size = 5, stride = 2):
            return (size - (kernel_size - 1) - 1) // stride  + 1
        convw = conv2d_size_out(conv2d_size_out(conv2d_size_out(w)))
        convh = conv2d_size_out(conv2d_size_out(conv2d_size_out(h)))
        linear_input_size = convw * convh * 32
        self.head = nn.Linear(linear_input_size, outputs)

    # Called with either one element to determine next action, or a batch
    # during optimization. Returns tensor([[left0exp,right0exp]...]).
    def forward(self, x):
        x = x.to(device)
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.relu(self.bn3(self.conv3(x)))
        return self.head(x.view(x.size(0), -1))


def resize(screen):
    """Stand-in for T.Resize(40, interpolation=Image.CUBIC) on a CHW float screen."""
    _, height, width = screen.shape
    size = (40, int(width * 40 / height))
    return F.interpolate(screen.unsqueeze(0), size=size, mode='bicubic',
                         align_corners=False).squeeze(0)


def get_cart_location(screen_width):
    world_width = env.x_threshold * 2
    scale = screen_width / world_width
    return int(env.state[0] * scale + screen_width / 2.0)  # MIDDLE OF CART

def get_screen():
    # Returned screen requested by gym is 400x600x3, but is sometimes larger
    # such as 800x1200x3. Transpose it into torch order (CHW).
    screen = env.render(mode='rgb_array').transpose((2, 0, 1))
    # Cart is in the lower half, so strip off the top and bottom of the screen
    _, screen_height, screen_width = screen.shape
    screen = screen[:, int(screen_height*0.4):int(screen_height * 0.8)]
    view_width = int(screen_width * 0.6)
    cart_location = get_cart_location(screen_width)
    if cart_location < view_width // 2:
        slice_range = slice(view_width)
    elif cart_location > (screen_width - view_width // 2):
        slice_range = slice(-view_width, None)
    else:
        slice_range = slice(cart_location - view_width // 2,
                            cart_location + view_width // 2)
    # Strip off the edges, so that we have a square image centered on a cart
    screen = screen[:, :, slice_range]
    # Convert to float, rescale, convert to torch tensor
    # (this doesn't require a copy)
    screen = np.ascontiguousarray(screen, dtype=np.float32) / 255
    screen = torch.from_numpy(screen)
    # Resize, and add a batch dimension (BCHW)
    return resize(screen).unsqueeze(0)


BATCH_SIZE = 128
GAMMA = 0.999
EPS_START = 0.9
EPS_END = 0.05
EPS_DECAY = 200
TARGET_UPDATE = 10


def select_action(state):
    global steps_done
    sample = random.random()
    eps_threshold = EPS_END + (EPS_START - EPS_END) * \
        math.exp(-1. * steps_done / EPS_DECAY)
    steps_done += 1
    if sample > eps_threshold:
        with torch.no_grad():
            # t.max(1) will return largest column value of each row.
            # second column on max result is index of where max element was
            # found, so we pick action with the larger expected reward.
            return policy_net(state).max(1)[1].view(1, 1)
    else:
        return torch.tensor([[random.randrange(n_actions)]], device=device, dtype=torch.long)


def plot_durations():
    durations_t = torch.tensor(episode_durations, dtype=torch.float)
    print('Episode', len(durations_t), 'duration', int(durations_t[-1]))
    # Take 100 episode averages and plot them too
    if len(durations_t) >= 100:
        means = durations_t.unfold(0, 100, 1).mean(1).view(-1)
        print('100-episode mean', float(means[-1]))


def optimize_model():
    if len(memory) < BATCH_SIZE:
        return
    transitions = memory.sample(BATCH_SIZE)
    # Transpose the batch (see https://stackoverflow.com/a/19343/3343043 for
    # detailed explanation). This converts batch-array of Transitions
    # to Transition of batch-arrays.
    batch = Transition(*zip(*transitions))

    # Compute a mask of non-final states and concatenate the batch elements
    # (a final state would've been the one after which simulation ended)
    non_final_mask = torch.tensor(tuple(map(lambda s: s is not None,
                                          batch.next_state)), device=device, dtype=torch.bool)
    non_final_next_states = torch.cat([s for s in batch.next_state
                                                if s is not None])
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)

    # Compute Q(s_t, a) - the model computes Q(s_t), then we select the
    # columns of actions taken. These are the actions which would've been taken
    # for each batch state according to policy_net
    state_action_values = policy_net(state_batch).gather(1, action_batch)

    # Compute V(s_{t+1}) for all next states.
    # Expected values of actions for non_final_next_states are computed based
    # on the "older" target_net; selecting their best reward with max(1)[0].
    # This is merged based on the mask, such that we'll have either the expected
    # state value or 0 in case the state was final.
    next_state_values = torch.zeros(BATCH_SIZE, device=device)
    next_state_values[non_final_mask] = target_net(non_final_next_states).max(1)[0].detach()
    # Compute the expected Q values
    expected_state_action_values = (next_state_values * GAMMA) + reward_batch

    # Compute Huber loss
    criterion = nn.SmoothL1Loss()
    loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))

    # Optimize the model
    optimizer.zero_grad()
    loss.backward()
    for param in policy_net.parameters():
        param.grad.data.clamp_(-1, 1)
    optimizer.step()


def setup(seed):
    """The script's set-up: the environment, the screen size, the two nets, the optimizer
    and the replay memory, as globals."""
    global env, screen_height, screen_width, n_actions, policy_net, target_net
    global optimizer, memory, steps_done, episode_durations
    random.seed(seed)
    torch.manual_seed(seed)
    env = CartPole(seed)
    env.reset()

    # Get screen size so that we can initialize layers correctly based on shape
    # returned from AI gym. Typical dimensions at this point are close to 3x40x90
    # which is the result of a clamped and down-scaled render buffer in get_screen()
    init_screen = get_screen()
    _, _, screen_height, screen_width = init_screen.shape

    # Get number of actions from gym action space
    n_actions = env.action_space.n

    policy_net = DQN(screen_height, screen_width, n_actions).to(device)
    target_net = DQN(screen_height, screen_width, n_actions).to(device)
    target_net.load_state_dict(policy_net.state_dict())
    target_net.eval()

    optimizer = optim.RMSprop(policy_net.parameters())
    memory = ReplayMemory(10000)

    steps_done = 0
    episode_durations = []


def run_episodes(num_episodes=12):
    """The script's training loop."""
    for i_episode in range(num_episodes):
        # Initialize the environment and state
        env.reset()
        last_screen = get_screen()
        current_screen = get_screen()
        state = current_screen - last_screen
        for t in count():
            # Select and perform an action
            action = select_action(state)
            _, reward, done, _ = env.step(action.item())
            reward = torch.tensor([reward], device=device)

            # Observe new state
            last_screen = current_screen
            current_screen = get_screen()
            if not done:
                next_state = current_screen - last_screen
            else:
                next_state = None

            # Store the transition in memory
            memory.push(state, action, next_state, reward)

            # Move to the next state
            state = next_state

            # Perform one step of the optimization (on the policy network)
            optimize_model()
            if done:
                episode_durations.append(t + 1)
                plot_durations()
                break
        # Update the target network, copying all weights and biases in DQN
        if i_episode % TARGET_UPDATE == 0:
            target_net.load_state_dict(policy_net.state_dict())

    print('Complete')


def dqn_nets_compiled():
    """Both nets compiled once the script has built them (`policy_net =
    torch.compile(policy_net)`, the same for target_net): select_action's single screens
    under no_grad, optimize_model's batches, the target net's weights reloaded through the
    compiled wrappers."""
    global policy_net, target_net
    setup(0)
    policy_net = torch.compile(policy_net)
    target_net = torch.compile(target_net)
    run_episodes()


def dqn_optimize_model_compiled():
    """The optimization step compiled (`optimize_model = torch.compile(optimize_model)`),
    the nets left as the script builds them."""
    global optimize_model
    setup(1)
    plain_step = optimize_model
    optimize_model = torch.compile(optimize_model)
    try:
        run_episodes()
    finally:
        optimize_model = plain_step


RECOMPILE_CASES = [
    ("dqn_nets_compiled", dqn_nets_compiled),
    ("dqn_optimize_model_compiled", dqn_optimize_model_compiled),
]
