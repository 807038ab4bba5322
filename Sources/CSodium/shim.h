#ifndef NOTES_CSODIUM_SHIM_H
#define NOTES_CSODIUM_SHIM_H

#include <sodium.h>

#endif
