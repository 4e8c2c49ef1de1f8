//===- moe.cpp - Builds the moe example and prints its brick IR ---------===//
#include "catalog.h"

int main() { return examples::printBrickIR("moe"); }
