"""PyTorch tutorials (pytorch/tutorials at 03cd491, beginner_source/fgsm_tutorial.py, by
Nathan Inkawhich; BSD-3-Clause, see licenses/pytorch-tutorials.LICENSE): the fast gradient
sign attack on the MNIST LeNet, `test` running every test image one by one (batch size 1,
the input's requires_grad set, the attack skipped when the clean prediction is wrong, the
perturbed image classified again) for each epsilon in [0, .05, ..., .3]; compiled as a user
adds torch.compile to the script. Changed from upstream: the pretrained LeNet weights
(lenet_mnist_model.pth) replaced by a seeded initialisation, and the MNIST test set by 40
random 1x28x28 images whose labels are the network's own clean predictions except for every
fifth image (a stand-in for a pretrained model that is right on most images, so most images
are attacked); matplotlib's plots removed; the module-level script written as the drivers
below."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset

epsilons = [0, .05, .1, .15, .2, .25, .3]
use_cuda=True


# LeNet Model definition
class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 320)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def fake_mnist_test(model, count):
    """Stand-in for the MNIST test set under a pretrained model: random images labelled with
    the model's clean prediction, every fifth label shifted to a wrong class."""
    images = torch.rand(count, 1, 28, 28)
    with torch.no_grad():
        labels = model(images).argmax(dim=1)
    labels[::5] = (labels[::5] + 1) % 10
    return TensorDataset(images, labels)


# FGSM attack code
def fgsm_attack(image, epsilon, data_grad):
    # Collect the element-wise sign of the data gradient
    sign_data_grad = data_grad.sign()
    # Create the perturbed image by adjusting each pixel of the input image
    perturbed_image = image + epsilon*sign_data_grad
    # Adding clipping to maintain [0,1] range
    perturbed_image = torch.clamp(perturbed_image, 0, 1)
    # Return the perturbed image
    return perturbed_image


def test( model, device, test_loader, epsilon ):

    # Accuracy counter
    correct = 0
    adv_examples = []

    # Loop over all examples in test set
    for data, target in test_loader:

        # Send the data and label to the device
        data, target = data.to(device), target.to(device)

        # Set requires_grad attribute of tensor. Important for Attack
        data.requires_grad = True

        # Forward pass the data through the model
        output = model(data)
        init_pred = output.max(1, keepdim=True)[1] # get the index of the max log-probability

        # If the initial prediction is wrong, dont bother attacking, just move on
        if init_pred.item() != target.item():
            continue

        # Calculate the loss
        loss = F.nll_loss(output, target)

        # Zero all existing gradients
        model.zero_grad()

        # Calculate gradients of model in backward pass
        loss.backward()

        # Collect datagrad
        data_grad = data.grad.data

        # Call FGSM Attack
        perturbed_data = fgsm_attack(data, epsilon, data_grad)

        # Re-classify the perturbed image
        output = model(perturbed_data)

        # Check for success
        final_pred = output.max(1, keepdim=True)[1] # get the index of the max log-probability
        if final_pred.item() == target.item():
            correct += 1
            # Special case for saving 0 epsilon examples
            if (epsilon == 0) and (len(adv_examples) < 5):
                adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                adv_examples.append( (init_pred.item(), final_pred.item(), adv_ex) )
        else:
            # Save some adv examples for visualization later
            if len(adv_examples) < 5:
                adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
                adv_examples.append( (init_pred.item(), final_pred.item(), adv_ex) )

    # Calculate final accuracy for this epsilon
    final_acc = correct/float(len(test_loader))
    print("Epsilon: {}\tTest Accuracy = {} / {} = {}".format(epsilon, correct, len(test_loader), final_acc))

    # Return the accuracy and an adversarial example
    return final_acc, adv_examples


def load(seed):
    """The network (its pretrained weights stood in by a seeded initialisation), in eval
    mode, and the test loader."""
    torch.manual_seed(seed)
    # Define what device we are using
    print("CUDA Available: ",torch.cuda.is_available())
    device = torch.device("cuda" if (use_cuda and torch.cuda.is_available()) else "cpu")

    # Initialize the network
    model = Net().to(device)

    # Set the model in evaluation mode. In this case this is for the Dropout layers
    model.eval()

    # MNIST Test dataset and dataloader declaration
    test_loader = torch.utils.data.DataLoader(fake_mnist_test(model, 40), batch_size=1, shuffle=True)
    return model, device, test_loader


def run_attack(model, device, test_loader):
    accuracies = []
    examples = []

    # Run test for each epsilon
    for eps in epsilons:
        acc, ex = test(model, device, test_loader, eps)
        accuracies.append(acc)
        examples.append(ex)
    return accuracies, examples


def fgsm_model_compiled():
    """The attacked network compiled (`model = torch.compile(model)` after `model.eval()`),
    the attack run for every epsilon."""
    model, device, test_loader = load(0)
    model = torch.compile(model)
    run_attack(model, device, test_loader)


def fgsm_attack_compiled():
    """The attack step compiled (`fgsm_attack = torch.compile(fgsm_attack)`), the network
    left eager."""
    global fgsm_attack
    model, device, test_loader = load(1)
    plain = fgsm_attack
    fgsm_attack = torch.compile(fgsm_attack)
    try:
        run_attack(model, device, test_loader)
    finally:
        fgsm_attack = plain


RECOMPILE_CASES = [
    ("fgsm_model_compiled", fgsm_model_compiled),
    ("fgsm_attack_compiled", fgsm_attack_compiled),
]
