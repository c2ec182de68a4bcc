#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"

int np_print_json(cJSON *json)
{
	char *text = json ? cJSON_Print(json) : NULL;
	cJSON_Delete(json);
	if (!text)
		return np_error("cannot render JSON: %s", strerror(ENOMEM));
	puts(text);
	free(text);
	return EXIT_OK;
}
