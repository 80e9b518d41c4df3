//! The grants that need no person: client_credentials (a client secret or
//! a private_key_jwt assertion) and cross-app access (an identity
//! provider's ID token exchanged for an ID-JAG, then the jwt-bearer grant).

use super::*;

impl Authorizer {
    pub(super) async fn client_credentials(
        &self,
        d: &Discovered,
        challenge: &BearerChallenge,
        extra: &[String],
        trace: &mut Trace,
    ) -> Result<(), AuthError> {
        let Some(client) = register::configured(&self.spec.oauth, Some(&d.meta))? else {
            return Err(AuthError::new(
                AuthErrorKind::Config,
                "the client_credentials grant needs `client_id` and `client_secret` or `private_key_file` in [servers.NAME.oauth]",
            )
            .with_trace(trace));
        };
        let endpoint = self.token_endpoint(d, trace)?.to_string();
        let scopes = self.scopes(d, challenge, extra);
        let resource = self.resource(d);
        let dpop = self.dpop_for_new(d, challenge, trace);
        let mut params = vec![("grant_type".to_string(), "client_credentials".to_string())];
        if !scopes.is_empty() {
            params.push(("scope".into(), scopes.join(" ")));
        }
        if let Some(r) = &resource {
            params.push(("resource".into(), r.clone()));
        }
        trace.note(format!(
            "client_credentials as {} ({})",
            client.client_id,
            client.auth.method_name()
        ));
        let g = token::request(
            &self.http,
            &endpoint,
            &client,
            &d.issuer,
            params,
            dpop.as_deref(),
            trace,
        )
        .await
        .map_err(|f| f.into_auth(trace))?;
        self.keep(d, &client.client_id, resource, &scopes, g, None);
        Ok(())
    }

    /// Cross-app access (SEP-990): the identity provider's ID token is
    /// exchanged for an ID-JAG (RFC 8693), which the authorization server
    /// takes as a jwt-bearer grant (RFC 7523).
    pub(super) async fn cross_app(
        &self,
        d: &Discovered,
        challenge: &BearerChallenge,
        extra: &[String],
        trace: &mut Trace,
    ) -> Result<(), AuthError> {
        let o = &self.spec.oauth;
        let (Some(id_token), Some(idp_endpoint)) = (&o.id_token, &o.idp_token_endpoint) else {
            return Err(AuthError::new(
                AuthErrorKind::Config,
                "cross-app access needs `id_token` and `idp_token_endpoint` in [servers.NAME.oauth]",
            ));
        };
        let idp_client = Client {
            client_id: o
                .idp_client_id
                .clone()
                .or_else(|| o.client_id.clone())
                .unwrap_or_default(),
            auth: ClientAuth::choose(
                o.idp_client_secret.clone().map(Secret::new).as_ref(),
                None,
                None,
            ),
        };
        let scopes = self.scopes(d, challenge, extra);
        let resource = self.resource(d).unwrap_or_else(|| self.spec.url.clone());
        let mut params = vec![
            (
                "grant_type".to_string(),
                "urn:ietf:params:oauth:grant-type:token-exchange".to_string(),
            ),
            (
                "requested_token_type".into(),
                "urn:ietf:params:oauth:token-type:id-jag".into(),
            ),
            ("audience".into(), d.issuer.clone()),
            ("resource".into(), resource.clone()),
            ("subject_token".into(), id_token.clone()),
            (
                "subject_token_type".into(),
                "urn:ietf:params:oauth:token-type:id_token".into(),
            ),
        ];
        if !scopes.is_empty() {
            params.push(("scope".into(), scopes.join(" ")));
        }
        trace.note("cross-app access: exchanging the identity provider's ID token for an ID-JAG");
        let jag = token::request(
            &self.http,
            idp_endpoint,
            &idp_client,
            idp_endpoint,
            params,
            None,
            trace,
        )
        .await
        .map_err(|f| f.into_auth(trace))?;
        let Some(client) = register::configured(o, Some(&d.meta))? else {
            return Err(AuthError::new(
                AuthErrorKind::Config,
                "cross-app access needs `client_id` (and `client_secret`) for the authorization server in [servers.NAME.oauth]",
            ));
        };
        let endpoint = self.token_endpoint(d, trace)?.to_string();
        let dpop = self.dpop_for_new(d, challenge, trace);
        let params = jwt_bearer(jag.access_token.expose(), &scopes);
        let g = token::request(
            &self.http,
            &endpoint,
            &client,
            &d.issuer,
            params,
            dpop.as_deref(),
            trace,
        )
        .await
        .map_err(|f| f.into_auth(trace))?;
        self.keep(d, &client.client_id, Some(resource), &scopes, g, None);
        Ok(())
    }

    /// Workload identity federation (SEP-1933, RFC 7523): the platform's
    /// JWT for this workload (from `workload_token_file` or
    /// `workload_token_env`, read now: platforms rotate it) is the
    /// assertion of a `jwt-bearer` token request. A refusal is the answer:
    /// no retry, and no other grant.
    pub(super) async fn workload(
        &self,
        d: &Discovered,
        challenge: &BearerChallenge,
        extra: &[String],
        trace: &mut Trace,
    ) -> Result<(), AuthError> {
        let o = &self.spec.oauth;
        let config = |m: String| AuthError::new(AuthErrorKind::Config, m);
        let jwt = match (&o.workload_token_file, &o.workload_token_env) {
            (Some(path), _) => std::fs::read_to_string(path).map_err(|e| {
                config(format!(
                    "workload identity: cannot read `workload_token_file` {}: {e}",
                    path.display()
                ))
            })?,
            (None, Some(var)) => std::env::var(var).map_err(|_| {
                config(format!(
                    "workload identity: the environment variable {var} (`workload_token_env`) is not set"
                ))
            })?,
            (None, None) => {
                return Err(config(
                    "workload identity needs `workload_token_file` or `workload_token_env` in [servers.NAME.oauth]".into(),
                ));
            }
        };
        let jwt = jwt.trim();
        if jwt.is_empty() {
            return Err(config(
                "workload identity: the workload token is empty".into(),
            ));
        }
        let Some(client) = register::configured(o, Some(&d.meta))? else {
            return Err(config(
                "workload identity needs `client_id` (the workload's client at the authorization server) in [servers.NAME.oauth]".into(),
            ));
        };
        let scopes = self.scopes(d, challenge, extra);
        let resource = self.resource(d);
        let endpoint = self.token_endpoint(d, trace)?.to_string();
        let dpop = self.dpop_for_new(d, challenge, trace);
        let mut params = jwt_bearer(jwt, &scopes);
        if let Some(r) = &resource {
            params.push(("resource".into(), r.clone()));
        }
        trace.note("workload identity: the platform's token as a jwt-bearer assertion");
        let g = token::request(
            &self.http,
            &endpoint,
            &client,
            &d.issuer,
            params,
            dpop.as_deref(),
            trace,
        )
        .await
        .map_err(|f| f.into_auth(trace))?;
        self.keep(d, &client.client_id, resource, &scopes, g, None);
        Ok(())
    }
}

/// The params of an RFC 7523 `jwt-bearer` token request: the grant, the
/// assertion, and the scopes when there are any.
fn jwt_bearer(assertion: &str, scopes: &[String]) -> Vec<(String, String)> {
    let mut params = vec![
        (
            "grant_type".to_string(),
            "urn:ietf:params:oauth:grant-type:jwt-bearer".to_string(),
        ),
        ("assertion".into(), assertion.to_string()),
    ];
    if !scopes.is_empty() {
        params.push(("scope".into(), scopes.join(" ")));
    }
    params
}
