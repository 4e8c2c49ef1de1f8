//===- brick.h - Everything a Brick kernel author needs -------------------===//
#ifndef BRICK_BRICK_H
#define BRICK_BRICK_H

#include "brick/DSL/Kernel.h"
#include "brick/DSL/Ops.h"
#include "brick/DSL/Tensor.h"
#include "brick/DSL/Types.h"

#endif // BRICK_BRICK_H
