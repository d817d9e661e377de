#!/usr/bin/env python3
"""Fits hf-transformers's host cost per op kind (workloads/runtimes/hf-transformers.json /host/op_us)
on the FIT split of validate/data/h200-sxm-hf-2026-12-01.json: the per-call CPU time of each op kind
comes from the profiles' CPU op lists (cpu_total_us / count of aten::linear, SDPA, mean, the
elementwise ops, cat/index_copy_), one scale (the profiler's inflation) and a per-forward time are
fitted by least squares to the measured host time of the eager decode steps. Needs model files
/tmp/hf/llama8.json and llama32.json (llama-3-8b with 8/32 layers). Usage: fit_hf_host.py decode [ridgeline]"""
import json,subprocess,sys

D=json.load(open('validate/data/h200-sxm-hf-2026-12-01.json'))
R=sys.argv[2] if len(sys.argv)>2 else 'build/cli/ridgeline'
PH=sys.argv[1].split(',') if len(sys.argv)>1 else ['decode']
fit=[r for r in D['records'] if r['split']=='fit' and r.get('launch')=='eager' and r['model']=='hf-llama3-8b' and r['phase'] in PH and 'cpu_ops' in r]
# per-call CPU cost per kind from the profiles' CPU op lists (cpu_total_us / count), FIT split
kinds={'gemm':['aten::linear'],'attention':['aten::scaled_dot_product_attention'],'reduction':['aten::mean'],
 'elementwise':['aten::mul','aten::add','aten::neg','aten::silu','aten::pow','aten::rsqrt','aten::to'],'cache_update':['aten::cat','aten::index_copy_']}
per={}
for k,names in kinds.items():
    us=n=0
    for r in fit:
        for o in r['cpu_ops']:
            if o['name'] in names: us+=o['cpu_total_us']; n+=o['count']
    per[k]=us/n
print('profiled per-call us', {k:round(v,2) for k,v in per.items()})
def counts(r):
    L=r['layers']
    cmd=[R,'predict','--gpu','h200-sxm','--model','/tmp/hf/llama%d.json'%L,'--phase',r['phase'],'--batch',str(r['batch']),'--runtime','hf-transformers','--kv-cache-impl',r['cache'],'--format','json','--ignore-memory']
    cmd+=['--kv-len',str(r['kv_len'])] if r['phase']=='decode' else ['--seq',str(r['seq'])]
    if r['cache']=='static': cmd+=['--max-cache-len',str(r['max_cache_len'])]
    p=json.loads(subprocess.run(cmd,capture_output=True,text=True,check=True).stdout)
    c={k:0 for k in kinds}
    for o in p['ops']:
        n=o['name']
        if 'cache_cat' in n or 'index_copy' in n: c['cache_update']+=1
        elif o['op']=='gemm': c['gemm']+=1
        elif o['op']=='attention': c['attention']+=1
        elif o['op'] in ('reduce','rmsnorm','layernorm','softmax'): c['reduction']+=1
        else: c['elementwise']+=1
    return c,L
X=[];y=[]
for r in fit:
    if r['device_median_ms'] > 1.1*r['host_median_ms']: continue  # GPU-bound: the host waited
    c,L=counts(r)
    w=sum(c[k]*per[k] for k in kinds)
    X.append([w,1]); y.append(r['host_median_ms']*1000)
def solve(A,b):
    n=len(b); M=[A[i][:]+[b[i]] for i in range(n)]
    for i in range(n):
        p=max(range(i,n),key=lambda r:abs(M[r][i])); M[i],M[p]=M[p],M[i]
        for r in range(n):
            if r!=i:
                f=M[r][i]/M[i][i]; M[r]=[a-f*c for a,c in zip(M[r],M[i])]
    return [M[i][n]/M[i][i] for i in range(n)]
A=[[sum(X[k][i]*X[k][j] for k in range(len(X))) for j in range(2)] for i in range(2)]
b=[sum(X[k][i]*y[k] for k in range(len(X))) for i in range(2)]
sol=solve(A,b); s,fwd=sol; blk=0  # per block: 0 (a free fit goes negative)
print('scale %.4f per_block %.1f per_forward %.1f'%(s,blk,fwd))
pred=[sum(a*b for a,b in zip(x,sol)) for x in X]
print('fit host MAPE %.2f%%'%(100*sum(abs(p-t)/t for p,t in zip(pred,y))/len(y)))
out={k:round(per[k]*s,2) for k in kinds}; out['per_block']=round(max(blk,0),1); out['per_forward']=round(max(fwd,0),1)
print(json.dumps(out))
