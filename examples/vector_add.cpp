//===- vector_add.cpp - Builds the vector_add example and prints its brick IR ---------===//
#include "catalog.h"

int main() { return examples::printBrickIR("vector_add"); }
