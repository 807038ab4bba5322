#ifndef NOTES_CCMARK_SHIM_H
#define NOTES_CCMARK_SHIM_H

#include <cmark.h>

#endif
