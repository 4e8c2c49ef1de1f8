//===- softmax.cpp - Builds the softmax example and prints its brick IR ---------===//
#include "catalog.h"

int main() { return examples::printBrickIR("softmax"); }
