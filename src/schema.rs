//! JSON Schema checks of tool arguments (`inputSchema`) and structured
//! results (`outputSchema`), with errors by path for a person to read.

use serde_json::Value;

/// One way an instance breaks its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer into the instance; empty for the root.
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            self.path.as_str()
        };
        write!(f, "{path}: {}", self.message)
    }
}

/// Check `instance` against `schema`. `Err` means the schema itself could
/// not be compiled (the server sent a broken schema).
pub fn check(schema: &Value, instance: &Value) -> Result<Vec<Violation>, String> {
    let validator = jsonschema::validator_for(schema)
        .map_err(|e| format!("the schema is not valid JSON Schema: {e}"))?;
    Ok(validator
        .iter_errors(instance)
        .map(|e| Violation {
            path: e.instance_path().to_string(),
            message: e.to_string(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn violations_name_their_paths() {
        let schema = json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"array","items":{"type":"string"}}},"required":["a"]});
        assert!(
            check(&schema, &json!({"a": 1, "b": ["x"]}))
                .unwrap()
                .is_empty()
        );
        let v = check(&schema, &json!({"b": ["x", 2]})).unwrap();
        assert_eq!(v.len(), 2, "{v:?}");
        assert!(
            v.iter()
                .any(|x| x.path.is_empty() && x.message.contains("\"a\""))
        );
        assert!(
            v.iter()
                .any(|x| x.path == "/b/1" && x.message.contains("string"))
        );
        assert!(v[0].to_string().contains(": "));
    }

    #[test]
    fn draft07_schemas_from_real_servers_compile() {
        let schema = json!({"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"message":{"type":"string"}},"required":["message"]});
        assert_eq!(check(&schema, &json!({"message": "hi"})).unwrap(), vec![]);
        assert_eq!(check(&schema, &json!({})).unwrap().len(), 1);
    }

    #[test]
    fn a_broken_schema_is_an_error_not_a_panic() {
        assert!(check(&json!({"type": 12}), &json!({})).is_err());
    }
}
