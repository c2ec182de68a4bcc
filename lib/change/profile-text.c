/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A profile written back as text, in the canonical form (advise -o): the
 * keys in the order a person writes them, each setting's from its kind's
 * target class and value. */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "change/profile.h"
#include "change/target.h"

static bool add(cJSON *obj, const char *key, cJSON *item)
{
	if (!item)
		return false;
	if (!cJSON_AddItemToObject(obj, key, item)) {
		cJSON_Delete(item);
		return false;
	}
	return true;
}

static bool add_str(cJSON *obj, const char *key, const char *s)
{
	return !s || add(obj, key, cJSON_CreateString(s));
}

static bool add_int(cJSON *obj, const char *key, int v)
{
	return v < 0 || add(obj, key, cJSON_CreateNumber(v));
}

static cJSON *setting_json(const struct np_setting *s)
{
	cJSON *o = cJSON_CreateObject();
	bool ok = o && add_str(o, "kind", np_attr_name(s->kind)) && np_attrs[s->kind].target->to_json(o, &s->target);
	if (np_attrs[s->kind].value == NP_VALUE_INT)
		ok = ok && s->value && add(o, np_attr_value_key(s->kind), cJSON_CreateNumber(strtol(s->value, NULL, 10)));
	else
		ok = ok && add_str(o, np_attr_value_key(s->kind), s->value);
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *rule_json(const struct np_rule *r)
{
	static const char *const irqs[] = { [NP_IRQS_LOCAL] = "local", [NP_IRQS_APP] = "app", [NP_IRQS_SPREAD] = "spread" };
	cJSON *o = cJSON_CreateObject(), *m = cJSON_CreateObject();
	bool ok = m && add_str(m, "class", r->match_class) && add_str(m, "driver", r->match_driver) &&
		  add_str(m, "ids", r->match_ids) && add_str(m, "net", r->match_net) &&
		  add_str(m, "pci", r->match_pci);
	if (!ok || !o)
		cJSON_Delete(m);
	/* add() owns m from here, also when it fails. */
	ok = ok && o && add(o, "match", m);
	switch (r->irqs) {
	case NP_IRQS_KEEP:
		break;
	case NP_IRQS_CPUS:
		ok = ok && add_str(o, "irqs", r->irq_cpus ? r->irq_cpus : "");
		break;
	default:
		ok = ok && add_str(o, "irqs", irqs[r->irqs]);
	}
	ok = ok && add_int(o, "rq_affinity", r->rq_affinity);
	if (r->rps != NP_RPS_KEEP)
		ok = ok && add_str(o, "rps", r->rps == NP_RPS_OFF ? "off" : "app");
	if (r->xps_follow_irq)
		ok = ok && add_str(o, "xps", "follow-irq");
	if (r->channels == NP_CHANNELS_PER_CORE || r->channels == NP_CHANNELS_PER_NODE)
		ok = ok && add_str(o, "channels", r->channels == NP_CHANNELS_PER_CORE ? "per-core" : "per-node");
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

char *np_profile_to_text(const struct np_profile *p)
{
	cJSON *root = cJSON_CreateObject(), *app = NULL, *list;
	char *text = NULL;
	bool ok = root && add_str(root, "format", NP_PROFILE_FORMAT) && add_str(root, "name", p->name) &&
		  add_str(root, "description", p->description);
	if (ok && (p->app_cpus || p->app_node >= 0)) {
		ok = (app = cJSON_CreateObject()) && add_str(app, "cpus", p->app_cpus) &&
		     add_int(app, "node", p->app_cpus ? -1 : p->app_node);
		if (!ok)
			cJSON_Delete(app);
		ok = ok && add(root, "app", app);
	}
	if (ok && p->nsettings) {
		ok = add(root, "settings", list = cJSON_CreateArray());
		for (size_t i = 0; ok && i < p->nsettings; i++) {
			cJSON *s = setting_json(&p->settings[i]);
			ok = s && cJSON_AddItemToArray(list, s);
			if (!ok)
				cJSON_Delete(s);
		}
	}
	if (ok && p->nrules) {
		ok = add(root, "rules", list = cJSON_CreateArray());
		for (size_t i = 0; ok && i < p->nrules; i++) {
			cJSON *r = rule_json(&p->rules[i]);
			ok = r && cJSON_AddItemToArray(list, r);
			if (!ok)
				cJSON_Delete(r);
		}
	}
	char *json = ok ? cJSON_Print(root) : NULL;
	cJSON_Delete(root);
	/* A file ends with a newline; cJSON does not add one. */
	if (json && asprintf(&text, "%s\n", json) < 0)
		text = NULL;
	cJSON_free(json);
	return text;
}
