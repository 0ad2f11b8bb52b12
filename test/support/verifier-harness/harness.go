// Runs VerifySignature from the README's Go snippet (compiled beside this file) on every case of os.Args[1].
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var cases []struct{ Name, Body, Header, Secret string }
	if err := json.Unmarshal(data, &cases); err != nil {
		panic(err)
	}
	for _, c := range cases {
		body, err := base64.StdEncoding.DecodeString(c.Body)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s\t%t\n", c.Name, VerifySignature(body, c.Header, c.Secret, 300*time.Second))
	}
}
