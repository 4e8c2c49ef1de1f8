//===- matmul.cpp - Builds the matmul example and prints its brick IR ---------===//
#include "catalog.h"

int main() { return examples::printBrickIR("matmul"); }
